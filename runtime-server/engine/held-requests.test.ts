import { describe, expect, it } from 'vitest';
import type { Refusal, SettledRoute } from './entry-proxy.ts';
import { HeldRequests, type Held, type HeldRequestsOptions, type Placement } from './held-requests.ts';
import { Probation } from './probation.ts';
import type { Shard } from './shard.ts';
import { UpstreamPool } from './upstream.ts';

const REFUSAL: Refusal = { status: 503, title: 'Service Unavailable', detail: 'their turn', reason: 'Probation' };
const turn = (key: string): Held => ({ shard: 0, key, why: 'turn', refusal: REFUSAL });

/** A shard whose workerd's pool the test drives; `switchTo` moves it to another pool and calls its switch listeners. */
function fakeShard(first: UpstreamPool) {
  let pool = first;
  const listeners = new Set<() => void>();
  const shard = {
    get current() {
      return { upstream: { pool } };
    },
    onSwitch: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)),
  } as unknown as Shard;
  return {
    shard,
    get pool() {
      return pool;
    },
    switchTo: (next = pool) => {
      pool = next;
      for (const listener of listeners) listener();
    },
  };
}

/** HeldRequests over `shard`, its cuts' waits recorded in `cuts`, with `options` over the defaults. */
function heldOn(shard: Shard, cuts: number[], options: Partial<HeldRequestsOptions>): HeldRequests {
  return new HeldRequests({
    waitMs: 5_000,
    turnMs: 2_000,
    graceMs: 1,
    maxPerProject: 2,
    shard: () => shard,
    turnHolder: () => 'p',
    endTurn: (_shard, _pool, waitedMs) => void cuts.push(waitedMs),
    refused: () => {},
    waiting: () => {},
    onHandover: () => () => {},
    ...options,
  });
}

function held(pool: UpstreamPool, options: Partial<HeldRequestsOptions> = {}) {
  const refused: string[] = [];
  const cuts: number[] = [];
  const { shard, switchTo } = fakeShard(pool);
  const requests = heldOn(shard, cuts, { refused: (key) => refused.push(key), ...options });
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

  describe('with the real probation turns', () => {
    const R: Refusal = { status: 503, title: 'Service Unavailable', detail: 'their turn', reason: 'Probation' };

    /** The engine's placement, reduced: held while the shard restarts, then the probation turn on its workerd's pool. */
    function engine(probation: Probation, options: Partial<HeldRequestsOptions> = {}) {
      const fake = fakeShard(new UpstreamPool());
      let restarting = false;
      const cuts: number[] = [];
      const held = heldOn(fake.shard, cuts, {
        graceMs: 10,
        maxPerProject: 100,
        turnHolder: (i) => probation.holder(i),
        waiting: (i, project, delta) => probation.waiting(i, project, delta),
        onHandover: (i, listener) => probation.onHandover(i, listener),
        ...options,
      });
      let placements = 0;
      const place = (key: string): Placement => {
        placements += 1;
        if (restarting) return { held: { shard: 0, key, why: 'restart', refusal: R } };
        const pool = fake.pool;
        if (!probation.admit(0, key.slice(0, key.indexOf('/')), (other) => pool.busy(other, 10))) return { held: { shard: 0, key, why: 'turn', refusal: R } };
        return { upstream: { pool, socket: { socketPath: '/x', dispatcher: undefined as never } }, app: key };
      };
      /** Ends the flights of requests made with `request`, by key. */
      const ends = new Map<string, Array<() => void>>();
      /** A request as the entry point makes it: placed, held if it must be, and in flight once routed (until `end(key)`). */
      const request = (key: string): Promise<SettledRoute> => {
        const first = place(key);
        const route = 'held' in first ? held.hold(first.held, () => place(key)) : first;
        const settled = 'pending' in route ? route.pending : Promise.resolve(route as SettledRoute);
        return settled.then((r) => {
          if (!r.refusal) ends.set(key, [...(ends.get(key) ?? []), r.upstream.pool.enter(r.app)]);
          return r;
        });
      };
      /** Takes the ends of `key`'s requests in flight (to end them without a sign of life after). */
      const flights = (key: string) => {
        const list = ends.get(key) ?? [];
        ends.delete(key);
        return list;
      };
      /** Ends `key`'s requests in flight; the workerd answers a health check past the grace after them (a sign of life). */
      const end = (key: string) => {
        for (const done of ends.get(key) ?? []) done();
        ends.delete(key);
        const pool = fake.pool;
        setTimeout(() => pool.output(), 15);
      };
      return {
        held,
        cuts,
        request,
        end,
        flights,
        place,
        get pool() {
          return fake.pool;
        },
        get placements() {
          return placements;
        },
        restart: () => (restarting = true),
        /** The shard's fresh workerd takes traffic; `before` runs on its pool before held requests are told. */
        switchTo: (before?: (pool: UpstreamPool) => void) => {
          restarting = false;
          const pool = new UpstreamPool();
          before?.(pool);
          fake.switchTo(pool);
        },
      };
    }

    it("lets one project's held requests in when its shard switches, not every project's at once", async () => {
      const probation = new Probation(60_000);
      probation.add(['looper/l', 'neighbour/n']);
      const e = engine(probation);
      e.restart();
      const neighbour = e.request('neighbour/n');
      const looper = e.request('looper/l');
      await new Promise((resolve) => setTimeout(resolve, 20));
      e.switchTo();
      await neighbour;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(e.pool.evidence().open.map((f) => f.app)).toEqual(['neighbour/n']);
      expect(e.held.size).toBe(1);
      void looper;
    });

    it('does not count a wait for a restart toward the turn bound', async () => {
      const probation = new Probation(60_000);
      probation.add(['holder/h', 'waiter/w']);
      const e = engine(probation, { turnMs: 150 });
      e.restart();
      const waiting = e.request('waiter/w');
      await new Promise((resolve) => setTimeout(resolve, 200)); // a restart longer than the turn bound
      // On the fresh workerd the holder is first in, with a request in flight: now the waiter waits for a turn.
      e.switchTo((pool) => {
        pool.enter('holder/h');
        expect(probation.admit(0, 'holder', (project) => pool.busy(project, 10))).toBe(true);
      });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(e.cuts).toEqual([]); // the restart's 200 ms are not the turn's
      await expect.poll(() => e.cuts.length).toBe(1); // 150 ms of waiting for the turn itself
      void waiting;
    });

    it('hands the turn to waiting projects though the holder keeps sending short requests', async () => {
      const probation = new Probation(60_000);
      probation.add(['holder/h', 'waiter/w']);
      const e = engine(probation);
      const health = setInterval(() => e.pool.output(), 100); // the watchdog's checks: a sign of life every 100 ms
      const others = setInterval(() => e.pool.output(), 7); // other projects' answers on the shard
      /** One request of `key` answered after `ms` (its answer the workerd's last sign of life until the next check). */
      const once = async (key: string, ms: number) => {
        const route = await e.request(key);
        await new Promise((resolve) => setTimeout(resolve, ms));
        e.pool.output();
        for (const done of e.flights(key)) done();
        return route;
      };
      let sending = true;
      const holding = (async () => {
        while (sending) {
          await once('holder/h', 1);
          await new Promise((resolve) => setTimeout(resolve, 60));
        }
      })();
      const waits: number[] = [];
      const waiters = Array.from({ length: 1 }, async () => {
        const until = Date.now() + 3_000;
        while (Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
          const started = Date.now();
          expect((await once('waiter/w', 5)).refusal).toBeUndefined();
          waits.push(Date.now() - started);
        }
      });
      await Promise.all(waiters);
      sending = false;
      await holding;
      clearInterval(health);
      clearInterval(others);
      // Each waits out at most a few of the holder's short requests and checks, never the whole 5 s.
      expect(Math.max(...waits)).toBeLessThan(1_000);
    }, 15_000);

    it('lets a request go, uncounted and cutting nobody, when its client leaves', async () => {
      const probation = new Probation(60_000);
      probation.add(['holder/h', 'waiter/w']);
      const refused: string[] = [];
      const e = engine(probation, { turnMs: 50, refused: (key) => refused.push(key) });
      await e.request('holder/h'); // takes the turn and keeps a request in flight
      const first = e.place('waiter/w');
      expect('held' in first).toBe(true);
      const route = e.held.hold((first as { held: Held }).held, () => e.place('waiter/w')) as { pending: Promise<SettledRoute>; cancel: () => void };
      route.cancel();
      expect((await route.pending).refusal).toEqual(R);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(refused).toEqual([]);
      expect(e.cuts).toEqual([]);
      expect(e.held.size).toBe(0);
      // Nobody waits now: the holder's next request goes in, and its own requests are never cut on anyone's behalf.
      const next = e.place('holder/h');
      expect('upstream' in next).toBe(true);
      expect(e.cuts).toEqual([]);
    });

    it("waits for the workerd's next sign of life when the holder has nothing in flight, without asking again and again", async () => {
      const probation = new Probation(60_000);
      probation.add(['holder/h', 'waiter/w']);
      const e = engine(probation);
      // The holder's request ends; the workerd shows no sign of life after it (a stall may be its doing).
      const end = e.pool.enter('holder/h');
      expect(probation.admit(0, 'holder', () => true)).toBe(true);
      e.pool.output();
      end();
      await new Promise((resolve) => setTimeout(resolve, 120)); // past the holder's reservation of its turn
      const waiting = e.request('waiter/w');
      const before = e.placements;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(e.placements - before).toBeLessThanOrEqual(4); // looked again every 100 ms at most
      expect(e.held.size).toBe(1);
      e.pool.output(); // a health check answered: the turn passes
      expect((await waiting).refusal).toBeUndefined();
    });
  });
});
