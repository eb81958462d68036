import { describe, expect, it } from 'vitest';
import type { Refusal, SettledRoute } from './entry-proxy.ts';
import { HeldRequests, type Held, type HeldRequestsOptions, type Placement } from './held-requests.ts';
import type { Shard } from './shard.ts';
import { UpstreamPool } from './upstream.ts';

const REFUSAL: Refusal = { status: 503, title: 'Service Unavailable', detail: 'their turn', reason: 'Probation' };
const turn = (key: string): Held => ({ shard: 0, key, why: 'turn', refusal: REFUSAL });

/** A shard of one workerd whose pool the test drives; `switchTo` calls its switch listeners. */
function fakeShard(pool: UpstreamPool) {
  const listeners = new Set<() => void>();
  const shard = {
    current: { upstream: { pool } },
    onSwitch: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  return { shard: shard as unknown as Shard, switchTo: () => [...listeners].forEach((l) => l()) };
}

function held(pool: UpstreamPool, options: Partial<HeldRequestsOptions> = {}) {
  const refused: string[] = [];
  const cuts: number[] = [];
  const { shard, switchTo } = fakeShard(pool);
  const requests = new HeldRequests({
    waitMs: 5_000,
    turnMs: 2_000,
    graceMs: 1,
    maxPerProject: 2,
    shard: () => shard,
    turnHolder: () => 'p',
    endTurn: (_shard, _pool, waitedMs) => cuts.push(waitedMs),
    refused: (key) => refused.push(key),
    ...options,
  });
  return { requests, refused, cuts, switchTo };
}

const routed = (pool: UpstreamPool): SettledRoute => ({ upstream: { pool, socket: { socketPath: '/x', dispatcher: undefined as never } }, app: 'q/b' });

describe('HeldRequests', () => {
  it('routes a request once the project holding the turn has nothing left in flight, not before', async () => {
    const pool = new UpstreamPool();
    const end = pool.enter('p/a');
    const { requests } = held(pool);
    let free = false;
    const route = requests.hold(turn('q/b'), (): Placement => (free ? routed(pool) : { held: turn('q/b') }));
    expect('pending' in route).toBe(true);
    expect(requests.size).toBe(1);
    let settled: SettledRoute | undefined;
    void (route as { pending: Promise<SettledRoute> }).pending.then((r) => (settled = r));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBeUndefined();
    free = true;
    end();
    await expect.poll(() => settled?.refusal === undefined && settled !== undefined).toBe(true);
    expect(requests.size).toBe(0);
  });

  it('answers its refusal when its wait ends, counted once', async () => {
    const pool = new UpstreamPool();
    pool.enter('p/a');
    const { requests, refused } = held(pool, { waitMs: 50, turnMs: 1_000 });
    const route = requests.hold(turn('q/b'), () => ({ held: turn('q/b') }));
    expect(await (route as { pending: Promise<SettledRoute> }).pending).toEqual({ refusal: REFUSAL });
    expect(refused).toEqual(['q/b']);
  });

  it('has the holder cut short once a request waited the turn bound, once', async () => {
    const pool = new UpstreamPool();
    pool.enter('p/a');
    const { requests, cuts } = held(pool, { waitMs: 200, turnMs: 40 });
    const route = requests.hold(turn('q/b'), () => ({ held: turn('q/b') }));
    await (route as { pending: Promise<SettledRoute> }).pending;
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toBeGreaterThanOrEqual(40);
  });

  it("routes a request held for its shard's restart when the shard switches", async () => {
    const pool = new UpstreamPool();
    const { requests, switchTo } = held(pool, { waitMs: 60_000 });
    let switched = false;
    const restart: Held = { shard: 0, key: 'q/b', why: 'restart', refusal: REFUSAL };
    const route = requests.hold(restart, () => (switched ? routed(pool) : { held: restart }));
    switched = true;
    switchTo();
    expect((await (route as { pending: Promise<SettledRoute> }).pending).refusal).toBeUndefined();
  });

  it('refuses at once past the held requests a project may have', () => {
    const pool = new UpstreamPool();
    pool.enter('p/a');
    const { requests, refused } = held(pool, { waitMs: 100 });
    requests.hold(turn('q/b'), () => ({ held: turn('q/b') }));
    requests.hold(turn('q/c'), () => ({ held: turn('q/c') }));
    expect(requests.hold(turn('q/d'), () => ({ held: turn('q/d') }))).toEqual({ refusal: REFUSAL });
    expect(refused).toEqual(['q/d']);
    // Another project has its own.
    expect('pending' in requests.hold(turn('r/e'), () => ({ held: turn('r/e') }))).toBe(true);
  });
});
