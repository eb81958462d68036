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
    expect(slots.take('c/1', 'c')).toBe(true);
    expect(slots.take('a/2', 'a')).toBe(false);
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
