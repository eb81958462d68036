import { describe, expect, it } from 'vitest';
import { BuildSlots } from './build-slots.ts';

describe('BuildSlots', () => {
  it('bounds builds in all and per project, so one project’s pushes wait behind its own', () => {
    const slots = new BuildSlots({ total: 2, perProject: 1 });
    expect(slots.take('a/1', 'a')).toBe(true);
    expect(slots.take('a/2', 'a')).toBe(false); // a's second waits
    expect(slots.take('b/1', 'b')).toBe(true); // b is not held up by a
    expect(slots.take('c/1', 'c')).toBe(false); // two running in all
    expect(slots.take('a/1', 'a')).toBe(true); // held already
    slots.release('a/1');
    // The freed slot is a/2's, which waited longest, whichever of the two is asked about first.
    expect(slots.take('c/1', 'c')).toBe(false);
    expect(slots.take('a/2', 'a')).toBe(true);
    slots.release('b/1');
    expect(slots.take('c/1', 'c')).toBe(true);
  });

  it('skips a waiting build whose project has no room, so a project queueing many builds never holds up another', () => {
    const slots = new BuildSlots({ total: 2, perProject: 1 });
    slots.take('a/1', 'a');
    slots.take('b/1', 'b');
    for (let i = 2; i <= 50; i++) expect(slots.take(`a/${i}`, 'a')).toBe(false);
    expect(slots.take('c/1', 'c')).toBe(false);
    slots.release('b/1');
    expect(slots.take('c/1', 'c')).toBe(true); // a's 49 wait behind a/1, not in c's way
  });

  it('forgets a waiting build that is released (deleted, cancelled), or not asked about for a minute', () => {
    let now = 0;
    const slots = new BuildSlots(
      { total: 1, perProject: 1 },
      () => {},
      () => now,
    );
    slots.take('a/1', 'a');
    expect(slots.take('b/1', 'b')).toBe(false);
    expect(slots.take('c/1', 'c')).toBe(false);
    slots.release('b/1'); // b/1 deleted while it waited
    slots.release('a/1');
    expect(slots.take('c/1', 'c')).toBe(true);
    expect(slots.take('d/1', 'd')).toBe(false);
    expect(slots.take('e/1', 'e')).toBe(false);
    slots.release('c/1');
    now += 61_000; // d/1 went without a word; e/1 asks again
    expect(slots.take('e/1', 'e')).toBe(true);
  });

  it('gives a build found running after a restart its slot back whatever the bound', () => {
    const slots = new BuildSlots({ total: 1, perProject: 1 });
    expect(slots.take('a/1', 'a')).toBe(true);
    expect(slots.take('a/2', 'a', true)).toBe(true);
    expect(slots.holds('a/2')).toBe(true);
  });

  it('says when a held slot is freed, whatever freed it (a finish, a deletion, a failed start)', () => {
    let freed = 0;
    const slots = new BuildSlots({ total: 1, perProject: 1 }, () => (freed += 1));
    slots.take('a/1', 'a');
    slots.release('b/1'); // not held: nothing freed
    expect(freed).toBe(0);
    slots.release('a/1');
    expect(freed).toBe(1);
    slots.release('a/1'); // released already
    expect(freed).toBe(1);
  });
});
