import { describe, expect, it } from 'vitest';
import { AnswerBudget, ResponseAnswers } from './answer-budget.ts';

const MiB = 1024 * 1024;
const bounds = { perProject: 32 * MiB, total: 48 * MiB, small: 64 * 1024 };

/** Whether `promise` has settled by the time the event loop has run what is queued now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  return (await Promise.race([promise.then(() => true), new Promise((resolve) => setImmediate(resolve, marker))])) !== marker;
}

describe('AnswerBudget', () => {
  it('lets answers in within a project’s bound and the total, and makes the rest wait for room', async () => {
    const budget = new AnswerBudget(bounds);
    const first = await budget.reserve('p1', 16 * MiB);
    await budget.reserve('p1', 16 * MiB);
    const third = budget.reserve('p1', 16 * MiB);
    expect(await settled(third)).toBe(false); // past p1's 32 MiB
    await budget.reserve('p2', 16 * MiB); // another project: within its bound and the total
    const fourth = budget.reserve('p3', 16 * MiB);
    expect(await settled(fourth)).toBe(false); // past the 48 MiB in all
    // A small answer never waits, whoever holds the rest.
    (await budget.reserve('p3', 1000))();
    first();
    first(); // given back once, however often called
    // The room goes in order: p1's waiter was first and fits p1's bound and the total again.
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    expect(budget.total).toBe(48 * MiB);
  });

  it('keeps a project’s own answers in order, and lets another project’s that fit go ahead of one that does not', async () => {
    const budget = new AnswerBudget(bounds);
    const a = await budget.reserve('p1', 30 * MiB);
    const waiting = budget.reserve('p1', 16 * MiB);
    const small = budget.reserve('p1', 1000); // small: let in at once, even behind its project's waiter
    expect(await settled(small)).toBe(true);
    await budget.reserve('p2', 16 * MiB); // fits: not held back by p1's waiter
    expect(await settled(waiting)).toBe(false);
    a();
    expect(await settled(waiting)).toBe(true);
  });

  it('keeps room for an answer that has waited its shelter: other projects’ medium answers no longer go ahead of it (found in review)', async () => {
    let now = 0;
    const budget = new AnswerBudget(bounds, 15_000, () => now);
    const [p2, p3, p4] = await Promise.all(['p2', 'p3', 'p4'].map((p) => budget.reserve(p, 16 * MiB)));
    const large = budget.reserve('p1', 30 * MiB);
    p2!();
    expect(await settled(large)).toBe(false); // 32 MiB held: 30 more do not fit 48
    const early = budget.reserve('p5', 16 * MiB); // before the shelter: fits, goes ahead
    expect(await settled(early)).toBe(true);
    now = 15_000;
    p3!();
    const late = budget.reserve('p6', 16 * MiB); // would fit, but leaves no room for the large one
    expect(await settled(late)).toBe(false);
    (await budget.reserve('p6', 1000))(); // small answers still never wait
    p4!();
    expect(await settled(large)).toBe(true);
    expect(await settled(late)).toBe(false);
    expect(budget.total).toBe(46 * MiB);
  });

  it('shelters no waiter its own project holds back: other projects are not capped for it (found in review)', async () => {
    let now = 0;
    const budget = new AnswerBudget({ ...bounds, total: 64 * MiB }, 15_000, () => now);
    await budget.reserve('p1', 32 * MiB);
    const own = budget.reserve('p1', 30 * MiB);
    expect(await settled(own)).toBe(false);
    now = 15_000;
    expect(await settled(budget.reserve('p2', 3 * MiB))).toBe(true); // 35 of 64 MiB
  });

  it('lets in at once those held back for a sheltered waiter that gave up (found in review)', async () => {
    let now = 0;
    const budget = new AnswerBudget({ ...bounds, total: 64 * MiB }, 15_000, () => now);
    await budget.reserve('pa', 20 * MiB);
    await budget.reserve('pb', 20 * MiB);
    const gone = new AbortController();
    const large = budget.reserve('pc', 30 * MiB, gone.signal);
    large.catch(() => undefined);
    now = 15_000;
    const medium = budget.reserve('pd', 10 * MiB);
    expect(await settled(medium)).toBe(false);
    gone.abort(new Error('30 s wait for room'));
    expect(await settled(medium)).toBe(true);
  });

  it('gives up a wait when its signal aborts, leaving the room to those after it', async () => {
    const budget = new AnswerBudget(bounds);
    const held = await budget.reserve('p1', 32 * MiB);
    const gone = new AbortController();
    const given = budget.reserve('p1', 16 * MiB, gone.signal);
    gone.abort(new Error('too long'));
    await expect(given).rejects.toThrow('too long');
    held();
    expect(budget.total).toBe(0);
  });

  it('gives a response’s answers back when it ends, one granted after that at once', async () => {
    const budget = new AnswerBudget(bounds);
    const other = await budget.reserve('p1', 32 * MiB);
    const response = new ResponseAnswers(budget, 'p1');
    await response.reserve(1000);
    const late = response.reserve(16 * MiB);
    response.end();
    expect(budget.total).toBe(32 * MiB);
    other();
    await late;
    expect(budget.total).toBe(0);
  });
});
