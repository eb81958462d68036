import { describe, expect, it } from 'vitest';
import { LoadMeter } from './load-stretch.ts';
import { UpstreamPool } from './upstream.ts';

/** A thread's CPU time the test moves by hand. */
function clock() {
  let cpu = 1000;
  return { read: () => cpu, spend: (ms: number) => void (cpu += ms) };
}

/** Lets the meter's reads of signs of life, one a millisecond at most, through. */
const nextMs = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('LoadMeter', () => {
  it("measures the longest stretch without a response head or health answer until the app's waiting requests have begun their answers", async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    const meter = new LoadMeter(thread.read, async () => {});
    pool.onHead(() => meter.alive());
    const request = pool.enter('p/app');
    const other = pool.enter('q/other');
    const load = meter.measure(pool, 'p/app');
    thread.spend(5);
    await nextMs();
    other.answered(); // an answer of another app, before the load
    thread.spend(300); // the load and the handler: no head, no health answer
    pool.output(); // body bytes read from a buffer meanwhile are no sign of the thread
    await nextMs();
    request.answered();
    thread.spend(50); // after the answer began: not the load's
    expect(await load).toBe(300);
  });

  it('ends at once when nothing of the app waits there, and with the workerd', async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    const meter = new LoadMeter(thread.read, async () => {});
    expect(await meter.measure(pool, 'p/app')).toBe(0);
    pool.enter('p/app');
    const load = meter.measure(pool, 'p/app');
    thread.spend(700);
    meter.end();
    expect(await load).toBe(700);
  });

  it('measures a load whose request left mid-load until a health check sent after that is answered', async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    let answerHealth!: () => void;
    const meter = new LoadMeter(thread.read, () => new Promise<void>((resolve) => (answerHealth = resolve)));
    const leave = pool.enter('p/app');
    const load = meter.measure(pool, 'p/app');
    thread.spend(100);
    leave(); // the client went away while the thread loads
    let measured: number | undefined;
    void load.then((ms) => (measured = ms));
    await nextMs();
    expect(measured).toBeUndefined();
    thread.spend(1200); // the load goes on
    answerHealth();
    expect(await load).toBe(1300);
  });

  it('does not wait for requests sent after the code was handed over', async () => {
    const pool = new UpstreamPool();
    const thread = clock();
    const meter = new LoadMeter(thread.read, async () => {});
    const first = pool.enter('p/app');
    const load = meter.measure(pool, 'p/app');
    pool.enter('p/app'); // a later request, waiting behind
    thread.spend(40);
    first.answered();
    expect(await load).toBe(40);
  });
});
