import { describe, expect, it } from 'vitest';
import { ProjectMemory } from './project-memory.ts';

describe('ProjectMemory', () => {
  const projectOf = (database: string) => database.split('-')[0]!;

  it('charges a project’s databases together up to the bound, and no further unless the work is done', () => {
    const memory = new ProjectMemory({ limitBytes: 100, projectOf });
    expect(memory.tryCharge('a-one', 60)).toBe(true);
    expect(memory.tryCharge('a-two', 41)).toBe(false);
    expect(memory.heldBy('a-two')).toBe(60);
    expect(memory.tryCharge('b-one', 100)).toBe(true);
    // An answer is charged past the bound; the project's next request is refused until it is given back.
    memory.charge('a-two', 80);
    expect(memory.tryCharge('a-one', 1)).toBe(false);
    memory.release('a-two', 80);
    expect(memory.tryCharge('a-one', 40)).toBe(true);
    memory.release('a-one', 100);
    expect(memory.heldBy('a-one')).toBe(0);
  });

  it('gives bytes back to the project they are held in when a database’s project changes while it holds them', () => {
    let account = (database: string) => `project:${database.split('-')[0]}`;
    const memory = new ProjectMemory({ limitBytes: 100, projectOf: (database) => account(database) });
    expect(memory.tryCharge('a-one', 60)).toBe(true);
    // The Projects listed: project a turns out to be ada's, as is project b.
    account = () => 'user:ada';
    expect(memory.tryCharge('b-one', 41)).toBe(true); // a-one's 60 are still counted as project a's
    expect(memory.tryCharge('a-one', 1)).toBe(false); // its next charge moves its 60 to ada's: 101 would pass 100
    memory.release('a-one', 60);
    memory.release('b-one', 41);
    expect([memory.totalHeld, memory.heldBy('a-one'), memory.heldBy('b-one')]).toEqual([0, 0, 0]);
    expect(memory.tryCharge('b-one', 100)).toBe(true);
  });

  it('keeps callers not yet authenticated in an account of their own', () => {
    const memory = new ProjectMemory({ limitBytes: 10 });
    expect(memory.tryCharge(undefined, 10)).toBe(true);
    expect(memory.tryCharge(undefined, 1)).toBe(false);
    expect(memory.tryCharge('db', 10)).toBe(true);
    memory.release(undefined, 10);
    expect(memory.heldBy(undefined)).toBe(0);
    expect(memory.refusal()).toMatchObject({ code: 'PROJECT_BUSY', message: expect.stringContaining('10 bytes') });
  });

  it('bounds what all projects hold together: past it the projects holding more than an equal share wait, one holding little gets in', () => {
    // Each project may hold 100; all together 200. Ten projects each within their own bound cannot fill the process.
    const memory = new ProjectMemory({ limitBytes: 100, totalLimitBytes: 200, projectOf });
    expect(memory.tryCharge('a-one', 90)).toBe(true);
    expect(memory.tryCharge('b-one', 90)).toBe(true);
    // 180 held; 40 more would pass 200, and c would hold more than a third of it (c is the third project).
    expect(memory.tryCharge('c-one', 40)).toBe(true); // 40 < 200 / 3
    expect(memory.totalHeld).toBe(220);
    // Past the total: a and b hold more than a quarter of it each (four projects with d), so they wait; d gets in.
    expect([memory.tryCharge('a-one', 1), memory.over('a-one'), memory.over('b-one')]).toEqual([false, true, true]);
    expect(memory.tryCharge('d-one', 10)).toBe(true);
    expect(memory.refusal().message).toContain('or while all projects’ requests hold 200 bytes, more than an equal share of that'.replace('’', "'"));
    memory.release('a-one', 90);
    memory.release('b-one', 90);
    expect([memory.totalHeld, memory.tryCharge('a-one', 90)]).toEqual([50, true]);
  });

  it('refuses a bound that is not a positive whole number', () => {
    expect(() => new ProjectMemory({ limitBytes: 0 })).toThrow(RangeError);
  });
});
