import { describe, expect, it } from 'vitest';
import { BuildSlots, type BuildAccount } from './build-slots.ts';

/** A project whose user created no other. */
const own = (project: string): BuildAccount => ({ project, user: project });

describe('BuildSlots', () => {
  it('bounds builds in all and per project, so one project’s pushes wait behind its own', () => {
    const slots = new BuildSlots({ total: 2, perProject: 1, perUser: 1 });
    expect(slots.take('a/1', own('a'))).toBe(true);
    expect(slots.take('a/2', own('a'))).toBe(false); // a's second waits
    expect(slots.take('b/1', own('b'))).toBe(true); // b is not held up by a
    expect(slots.take('c/1', own('c'))).toBe(false); // two running in all
    expect(slots.take('a/1', own('a'))).toBe(true); // held already
    slots.release('a/1');
    // The freed slot is c/1's, whose user has not had one yet (a/2 waited longer, but a's user just had one), whichever
    // of the two is asked about first.
    expect(slots.take('a/2', own('a'))).toBe(false);
    expect(slots.take('c/1', own('c'))).toBe(true);
    slots.release('b/1');
    expect(slots.take('a/2', own('a'))).toBe(true);
  });

  it('gives a free slot to the user served longest ago, so two people’s backlogs cannot keep a third waiting until they drain', () => {
    let now = 0;
    const slots = new BuildSlots(
      { total: 2, perProject: 1, perUser: 1 },
      () => {},
      () => now,
    );
    const of = (user: string, project: string): BuildAccount => ({ project, user });
    // Two users' backlogs of five projects each, queued before victor's push, all asked about again at every free in
    // the cache's order (theirs first), minutes apart (builds run for minutes).
    const queue = [...[0, 1, 2, 3, 4].flatMap((i) => [`h1p${i}/b`, `h2p${i}/b`]), 'v/b'];
    const account = (key: string) => (key === 'v/b' ? own('v') : of(key.slice(0, 2), key.split('/')[0] ?? ''));
    const started: string[] = [];
    const askAll = () => {
      slots.stillWaiting(new Set(queue.filter((k) => !slots.holds(k))));
      for (const key of queue) if (!slots.holds(key) && slots.take(key, account(key))) started.push(key);
    };
    askAll();
    for (let round = 0; round < 3; round++) {
      now += 10 * 60_000;
      const done = started[round] ?? '';
      queue.splice(queue.indexOf(done), 1);
      slots.release(done);
      askAll();
    }
    // By waiting time alone victor started eleventh, after both backlogs; now at the first free.
    expect(started.slice(0, 4)).toEqual(['h1p0/b', 'h2p0/b', 'v/b', 'h1p1/b']);
  });

  it('skips a waiting build whose project has no room, so a project queueing many builds never holds up another', () => {
    const slots = new BuildSlots({ total: 2, perProject: 1, perUser: 1 });
    slots.take('a/1', own('a'));
    slots.take('b/1', own('b'));
    for (let i = 2; i <= 50; i++) expect(slots.take(`a/${i}`, own('a'))).toBe(false);
    expect(slots.take('c/1', own('c'))).toBe(false);
    slots.release('b/1');
    expect(slots.take('c/1', own('c'))).toBe(true); // a's 49 wait behind a/1, not in c's way
  });

  it('forgets a waiting build that is released (deleted, cancelled), or not asked about for a minute', () => {
    let now = 0;
    const slots = new BuildSlots(
      { total: 1, perProject: 1, perUser: 1 },
      () => {},
      () => now,
    );
    slots.take('a/1', own('a'));
    expect(slots.take('b/1', own('b'))).toBe(false);
    expect(slots.take('c/1', own('c'))).toBe(false);
    slots.release('b/1'); // b/1 deleted while it waited
    slots.release('a/1');
    expect(slots.take('c/1', own('c'))).toBe(true);
    expect(slots.take('d/1', own('d'))).toBe(false);
    expect(slots.take('e/1', own('e'))).toBe(false);
    slots.release('c/1');
    now += 61_000; // d/1 went without a word; e/1 asks again
    expect(slots.take('e/1', own('e'))).toBe(true);
  });

  it('bounds one user’s projects together, so a person with many projects cannot hold every slot', () => {
    const slots = new BuildSlots({ total: 3, perProject: 1, perUser: 2 });
    const ofMallory = (project: string): BuildAccount => ({ project, user: 'user:mallory' });
    expect(slots.take('m1/1', ofMallory('m1'))).toBe(true);
    expect(slots.take('m2/1', ofMallory('m2'))).toBe(true);
    expect(slots.take('m3/1', ofMallory('m3'))).toBe(false); // her third project waits though a slot is free
    expect(slots.take('v/1', own('v'))).toBe(true); // and the free slot is another person's
    slots.release('m1/1');
    expect(slots.take('m3/1', ofMallory('m3'))).toBe(true);
  });

  it('skips a waiting build whose user has no room, as one whose project has none', () => {
    const slots = new BuildSlots({ total: 2, perProject: 1, perUser: 1 });
    const ofMallory = (project: string): BuildAccount => ({ project, user: 'user:mallory' });
    slots.take('m1/1', ofMallory('m1'));
    slots.take('v/1', own('v'));
    expect(slots.take('m2/1', ofMallory('m2'))).toBe(false);
    expect(slots.take('w/1', own('w'))).toBe(false);
    slots.release('v/1');
    expect(slots.take('w/1', own('w'))).toBe(true); // m2 waited longer, but her one slot is taken
  });

  it('gives a build found running after a restart its slot back whatever the bound', () => {
    const slots = new BuildSlots({ total: 1, perProject: 1, perUser: 1 });
    expect(slots.take('a/1', own('a'))).toBe(true);
    expect(slots.take('a/2', own('a'), true)).toBe(true);
    expect(slots.holds('a/2')).toBe(true);
  });

  it('says when a held slot is freed, whatever freed it (a finish, a deletion, a failed start)', () => {
    let freed = 0;
    const slots = new BuildSlots({ total: 1, perProject: 1, perUser: 1 }, () => (freed += 1));
    slots.take('a/1', own('a'));
    slots.release('b/1'); // not held: nothing freed
    expect(freed).toBe(0);
    slots.release('a/1');
    expect(freed).toBe(1);
    slots.release('a/1'); // released already
    expect(freed).toBe(1);
  });

  it('wakes the waiting builds when one that held the turn goes while a slot is free (review-167 F3)', () => {
    let freed = 0;
    const slots = new BuildSlots({ total: 1, perProject: 1, perUser: 1 }, () => (freed += 1));
    expect(slots.take('w/1', own('w'))).toBe(true);
    expect(slots.take('w/2', own('w'))).toBe(false);
    expect(slots.take('x/1', own('x'))).toBe(false);
    slots.release('w/1');
    expect(freed).toBe(1);
    // x has not had a slot yet: its build has the turn, and w's waits behind it.
    expect(slots.take('w/2', own('w'))).toBe(false);
    // x's build is cancelled before it asks: w's must be asked again, or the slot stays idle.
    slots.release('x/1');
    expect(freed).toBe(2);
    expect(slots.take('w/2', own('w'))).toBe(true);
    // A waiter going while every slot is held wakes nobody: there is nothing to take.
    expect(slots.take('y/1', own('y'))).toBe(false);
    slots.release('y/1');
    expect(freed).toBe(2);
  });
});
