import { describe, expect, it } from 'vitest';
import { loadStretch } from './load-stretch.ts';
import { UpstreamPool } from './upstream.ts';

/** A thread's CPU time the test moves by hand. */
function clock() {
  let cpu = 1000;
  return { read: () => cpu, spend: (ms: number) => void (cpu += ms) };
}

/** Lets `loadStretch`'s reads of signs of life, throttled to one a millisecond, through. */
const nextMs = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('loadStretch', () => {
  it("measures the longest stretch without a sign of life until the app's waiting requests have begun their answers", async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    const request = pool.enter('p/app');
    const other = pool.enter('q/other');
    const stretch = loadStretch(pool, 'p/app', thread.read, new Promise(() => {}));
    thread.spend(5);
    await nextMs();
    pool.output(); // an answer of another app timed to come before the load
    other.answered();
    thread.spend(300); // the load and the handler: nothing answered meanwhile
    await nextMs();
    pool.output();
    request.answered();
    thread.spend(50); // after the answer began: not the load's
    expect(await stretch).toBe(300);
  });

  it('ends when the app has no request waiting there, or the workerd ends', async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    expect(await loadStretch(pool, 'p/app', thread.read, new Promise(() => {}))).toBe(0);
    pool.enter('p/app');
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const stretch = loadStretch(pool, 'p/app', thread.read, ended);
    thread.spend(700);
    end();
    expect(await stretch).toBe(700);
  });

  it('does not wait for requests sent after the code was handed over', async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    const first = pool.enter('p/app');
    const stretch = loadStretch(pool, 'p/app', thread.read, new Promise(() => {}));
    await nextMs();
    pool.enter('p/app'); // a later request, waiting behind
    thread.spend(40);
    first.answered();
    expect(await stretch).toBe(40);
  });
});
