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

  it('keeps callers not yet authenticated in an account of their own', () => {
    const memory = new ProjectMemory({ limitBytes: 10 });
    expect(memory.tryCharge(undefined, 10)).toBe(true);
    expect(memory.tryCharge(undefined, 1)).toBe(false);
    expect(memory.tryCharge('db', 10)).toBe(true);
    memory.release(undefined, 10);
    expect(memory.heldBy(undefined)).toBe(0);
    expect(memory.refusal()).toMatchObject({ code: 'PROJECT_BUSY', message: expect.stringContaining('10 bytes') });
  });

  it('refuses a bound that is not a positive whole number', () => {
    expect(() => new ProjectMemory({ limitBytes: 0 })).toThrow(RangeError);
  });
});
