import { describe, expect, it } from 'vitest';
import { silentRuntimeLogger } from '../../src/runtime-contract/log.ts';
import { evictions, FALLBACK_SHELTER_MS, OnDemand, type KeptApp } from './on-demand.ts';
import type { Served } from './served.ts';

const app = (key: string, lastUsed: number, bytes = 10, preparing = false): KeptApp => ({ key, lastUsed, bytes, preparing });

describe('evictions', () => {
  it.each([
    { case: 'within both bounds: none', apps: [app('a', 1), app('b', 2)], maxApps: 2, cacheBytes: 100, out: [] },
    { case: 'past the count: the least recently used', apps: [app('b', 2), app('a', 1), app('c', 3)], maxApps: 2, cacheBytes: 100, out: ['a'] },
    { case: 'past the bytes: as many as it takes', apps: [app('a', 1, 40), app('b', 2, 40), app('c', 3, 40)], maxApps: 10, cacheBytes: 50, out: ['a', 'b'] },
    { case: 'never one being prepared', apps: [app('a', 1, 0, true), app('b', 2), app('c', 3)], maxApps: 2, cacheBytes: 100, out: ['b'] },
    { case: 'never the most recently used, even larger than the bound', apps: [app('a', 1, 10), app('big', 2, 500)], maxApps: 10, cacheBytes: 100, out: ['a'] },
    {
      case: 'one serving an earlier deployment than its own, which cannot be prepared, last',
      apps: [{ ...app('a', 1), fallback: true }, app('b', 2), { ...app('c', 3), fallback: true }, app('d', 4), app('e', 5), app('f', 6)],
      maxApps: 4,
      cacheBytes: 100,
      out: ['b', 'd'],
    },
    {
      case: 'those serving a fallback past half the bound on apps in their turn, the most recently used kept',
      apps: [{ ...app('a', 1), fallback: true }, { ...app('b', 2), fallback: true }, { ...app('c', 3), fallback: true }, app('d', 4), app('e', 5)],
      maxApps: 2,
      cacheBytes: 100,
      out: ['a', 'b', 'd'],
    },
    {
      case: 'one serving a fallback larger than half the bound in bytes in its turn',
      apps: [{ ...app('a', 1, 50), fallback: true }, app('b', 2, 10), app('c', 3, 10)],
      maxApps: 10,
      cacheBytes: 60,
      out: ['a'],
    },
    {
      case: 'one serving a fallback but idle for a while in its turn (only requests keep it sheltered)',
      apps: [{ ...app('a', 1), fallback: true }, app('b', 2), app('c', FALLBACK_SHELTER_MS + 10)],
      maxApps: 2,
      cacheBytes: 100,
      out: ['a'],
    },
    {
      case: "a project past its share of the apps loses its own first, not another's used longer ago (found in review: one tenant's rotation evicted everyone)",
      apps: [app('victim/a', 1), app('victim/b', 2), app('rotating/x', 3), app('rotating/y', 4), app('rotating/z', 5), app('rotating/w', 6)],
      maxApps: 4,
      cacheBytes: 1000,
      out: ['rotating/x', 'rotating/y'],
    },
    {
      case: 'a project past its share of the bytes loses its own first',
      apps: [app('small/a', 1, 10), app('big/x', 2, 60), app('big/y', 3, 60)],
      maxApps: 10,
      cacheBytes: 120,
      out: ['big/x'],
    },
    {
      case: 'projects past their share alike lose the least recently used of theirs, as before',
      apps: [app('p/a', 1), app('q/b', 2), app('p/c', 3), app('q/d', 4), app('r/e', 5)],
      maxApps: 4,
      cacheBytes: 1000,
      out: ['p/a'],
    },
  ])('$case', ({ apps, maxApps, cacheBytes, out }) => {
    expect(evictions(apps, { maxApps, cacheBytes }, Math.max(...apps.map((a) => a.lastUsed)))).toEqual(out);
  });

  it("weighs one person's projects as one account (found in review: 50 projects of one user still evicted others)", () => {
    const apps = [app('victim/a', 1), app('victim/b', 2), app('m1/x', 3), app('m1/y', 4), app('m2/x', 5), app('m2/y', 6), app('m3/x', 7), app('m3/y', 8)];
    const accountOf = (project: string) => (project.startsWith('m') ? 'mallory' : project);
    // By project, every project is past its share (2 of 6 / 4 = 1.5): the victim's least recently used goes first.
    expect(evictions(apps, { maxApps: 6, cacheBytes: 1000 }, 8)).toEqual(['victim/a', 'm1/x']);
    // By account, mallory's six are past its share (3) and go first.
    expect(evictions(apps, { maxApps: 6, cacheBytes: 1000 }, 8, accountOf)).toEqual(['m1/x', 'm1/y']);
  });
});

describe('OnDemand', () => {
  it('shares one preparation among concurrent first requests, and lets a failed one go so the next request tries again', async () => {
    const onDemand = new OnDemand({});
    let runs = 0;
    let fail: (err: Error) => void = () => {};
    const prepare = () => {
      runs += 1;
      return new Promise<void>((_, reject) => (fail = reject));
    };
    const both = [onDemand.first('p/a', prepare), onDemand.first('p/a', prepare)];
    expect(runs).toBe(1);
    expect(onDemand.kept('p/a')).toBe(true);
    fail(new Error('no such build'));
    for (const pending of both) await expect(pending).rejects.toThrow('no such build');
    expect(onDemand.kept('p/a')).toBe(false);
    await onDemand.first('p/a', async () => void (runs += 1));
    expect([runs, onDemand.kept('p/a')]).toEqual([2, true]);
  });

  it('keeps at deploy only new builds, while its policy says so, and records each use', () => {
    let now = 100;
    let eager = false;
    const onDemand = new OnDemand({ eagerBuilds: () => eager }, () => now);
    onDemand.deployed('p/first-list', true);
    eager = true;
    onDemand.deployed('p/new-build', true);
    onDemand.deployed('p/new-env', false);
    now = 200;
    onDemand.used('p/new-build');
    onDemand.used('p/new-env');
    expect(onDemand.apps(() => 0)).toEqual([{ key: 'p/new-build', lastUsed: 200, bytes: 0, preparing: false }]);
  });
});

describe('OnDemand preparations', () => {
  it('leaves an app out of passes while its first preparation fetches its build, and says when no request waits for one', async () => {
    const onDemand = new OnDemand({}, () => 100);
    const fetched = Promise.withResolvers<void>();
    const first = onDemand.first('a', async () => {
      await fetched.promise;
      onDemand.fetched('a');
    });
    expect([...onDemand.keys()]).toEqual(['a']);
    expect([...onDemand.preparable()]).toEqual([]);
    const idle = onDemand.whenIdle().then(() => 'idle');
    expect(await Promise.race([idle, new Promise((resolve) => setImmediate(resolve, 'waiting'))])).toBe('waiting');
    fetched.resolve();
    await first;
    expect([...onDemand.preparable()]).toEqual(['a']);
    expect(await idle).toBe('idle');
  });

  it('counts a request as waiting for its preparation only until it is answered 503 for waiting too long (found in review)', async () => {
    const onDemand = new OnDemand({ firstRequestTimeoutMs: 20 }, () => 100);
    const hung = Promise.withResolvers<void>();
    const first = onDemand.first('a', () => hung.promise);
    // A fetch that hangs holds background checks for as long as a request waits, not for as long as it hangs.
    await onDemand.whenIdle();
    expect([...onDemand.keys()]).toEqual(['a']);
    hung.resolve();
    await first;
  });

  it('leaves an app kept already in the passes while a first request prepares it again (a pass without it would stop serving it)', async () => {
    const onDemand = new OnDemand({ eagerBuilds: () => true }, () => 100);
    onDemand.deployed('a', true);
    const fetched = Promise.withResolvers<void>();
    const again = onDemand.first('a', () => fetched.promise);
    expect([...onDemand.preparable()]).toEqual(['a']);
    fetched.resolve();
    await again;
  });

  it('checks an app as never used, so it goes first past the bounds, and one kept already in place', async () => {
    const onDemand = new OnDemand({}, () => 100);
    let runs = 0;
    await onDemand.check('a', async () => void runs++);
    await onDemand.first('b', async () => void runs++);
    await onDemand.check('b', async () => void runs++);
    expect(runs).toBe(3);
    expect(onDemand.apps(() => 0).map(({ key, lastUsed }) => [key, lastUsed])).toEqual([
      ['a', 0],
      ['b', 100],
    ]);
    // A check waits for no request: the replica is idle throughout.
    await expect(onDemand.whenIdle()).resolves.toBeUndefined();
  });
});

describe('OnDemand static-asset rules', () => {
  /** A served app whose build has static assets and rules `size` bytes long (as its assets service config). */
  const withRules = (size: number) => ({ live: { build: { assetsDir: '/assets', assetConfig: { rules: 'x'.repeat(size - '{"rules":""}'.length) } } } }) as unknown as Served;

  it("keeps each shard's rules within the bound, the accounts past their share of it first (found in review: one project's 100 apps crash-looped its shard)", async () => {
    let now = 0;
    const onDemand = new OnDemand({ assetRulesPerShard: 1000, shardOf: (project) => (project === 'elsewhere' ? 1 : 0) }, () => now);
    const next = new Map<string, Served>([
      ['hog/a', withRules(400)],
      ['victim/v', withRules(100)],
      ['hog/b', withRules(400)],
      ['hog/c', withRules(400)],
      ['victim/plain', { live: { build: {} } } as unknown as Served],
      ['elsewhere/o', withRules(900)],
    ]);
    for (const key of next.keys()) {
      now += 1;
      await onDemand.first(key, async () => {});
    }
    // Shard 0 holds 1,300: the hog's 1,200 is past its share (500), so its least recently used goes, and that is enough.
    expect(onDemand.evictFrom(next, silentRuntimeLogger)).toEqual(['hog/a']);
    expect([...next.keys()]).toEqual(['victim/v', 'hog/b', 'hog/c', 'victim/plain', 'elsewhere/o']);
    // Within the bound: nothing more.
    expect(onDemand.evictFrom(next, silentRuntimeLogger)).toEqual([]);
  });

  it('lets no app go for its rules by default below 4 MiB a shard', async () => {
    const onDemand = new OnDemand({});
    const next = new Map<string, Served>([
      ['p/a', withRules(2 * 1024 ** 2)],
      ['p/b', withRules(1024 ** 2)],
    ]);
    for (const key of next.keys()) await onDemand.first(key, async () => {});
    expect(onDemand.evictFrom(next, silentRuntimeLogger)).toEqual([]);
  });
});
