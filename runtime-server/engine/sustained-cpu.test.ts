import { describe, expect, it } from 'vitest';
import { SustainedCpu, sustainedCulprit, type ShardTick, type SustainedUse } from './sustained-cpu.ts';

/**
 * Feeds `ticks` ticks 100 ms apart, the thread computing `cpu` of each 100 ms and wanting a core `busy` of it, with
 * `inFlight(i)` in flight at tick i; answers the windows found.
 */
function run(ticks: number, inFlight: (i: number) => Record<string, number>, options: { cpu?: number; busy?: number; windowMs?: number } = {}): SustainedUse[] {
  const { cpu = 1, busy = cpu, windowMs = 1000 } = options;
  const sustained = new SustainedCpu(windowMs);
  const found: SustainedUse[] = [];
  for (let i = 0; i <= ticks; i++) {
    const tick: ShardTick = { at: 10_000 + i * 100, cpuMs: i * 100 * cpu, busyMs: i * 100 * busy, inFlight: new Map(Object.entries(inFlight(i))) };
    const use = sustained.tick(tick);
    if (use) found.push(use);
  }
  return found;
}

describe('SustainedCpu', () => {
  it('finds a window the thread was saturated over, with each app its share by requests in flight, once a window', () => {
    const found = run(25, () => ({ 'hog/a': 9, 'calm/b': 1 }));
    expect(found).toHaveLength(2); // ticks 10 and 20: a window each
    expect(found[0]).toMatchObject({ wallMs: 1000, cpuMs: 1000, busy: 1, waiting: new Set(['hog', 'calm']) });
    expect(found[0]!.byRequests.get('hog/a')).toBeCloseTo(0.9);
    expect(found[0]!.byRequests.get('calm/b')).toBeCloseTo(0.1);
    expect(sustainedCulprit(found[0]!)).toEqual({ app: 'hog/a', share: expect.closeTo(0.9) as number });
  });

  it('finds nothing while the thread has time to spare', () => {
    expect(run(50, () => ({ 'hog/a': 9, 'calm/b': 1 }), { cpu: 0.8 })).toEqual([]);
  });

  it('counts the time the thread waited for a core: a shard on a busy machine is saturated though it gets part of a core', () => {
    expect(run(10, () => ({ 'hog/a': 9, 'calm/b': 1 }), { cpu: 0.4, busy: 0.95 })).toHaveLength(1);
  });

  it('finds nothing when no request was in flight for a tenth of the window (work nobody waits for)', () => {
    expect(run(60, (i) => (i % 25 === 0 ? { 'calm/b': 1 } : ({} as Record<string, number>)), { windowMs: 2000 })).toEqual([]);
  });

  it("sums the projects' waiting from the entry point's clock when there is one, not the ticks requests were seen at", () => {
    // The neighbour's requests, each 60 ms at most, fall between ticks: never seen in flight, 600 ms of the 5 s window by the clock.
    const sustained = new SustainedCpu(5000);
    const found: SustainedUse[] = [];
    for (let i = 0; i <= 50; i++) {
      const waitedMs = new Map([
        ['hog', i * 100],
        ['calm', i * 12],
      ]);
      const use = sustained.tick({ at: 10_000 + i * 100, cpuMs: i * 100, busyMs: i * 100, inFlight: new Map([['hog/a', 3]]), waitedMs });
      if (use) found.push(use);
    }
    expect(found).toHaveLength(1);
    expect(found[0]!.waitedMs).toEqual(
      new Map([
        ['hog', 5000],
        ['calm', 600],
      ]),
    );
    expect(sustainedCulprit(found[0]!)).toMatchObject({ app: 'hog/a' });
  });

  it('lays each tick on the requests in flight at it', () => {
    // The hog's 3 requests for the first half, the neighbour's 1 with them for the second: 0.5 + 0.5 × 3/4.
    const [use] = run(10, (i) => (i <= 5 ? { 'hog/a': 3 } : { 'hog/a': 3, 'calm/b': 1 }) as Record<string, number>);
    expect(use!.byRequests.get('hog/a')).toBeCloseTo(0.875);
    expect(use!.waiting).toEqual(new Set(['hog', 'calm']));
  });
});

describe('sustainedCulprit', () => {
  const use = (byRequests: Record<string, number>, waiting: string[]): SustainedUse => ({
    wallMs: 5000,
    cpuMs: 5000,
    busy: 1,
    byRequests: new Map(Object.entries(byRequests)),
    waiting: new Set(waiting),
    waitedMs: new Map(waiting.map((project) => [project, 5000])),
  });

  it('holds the app beside neighbours with sparse traffic, none of them in flight for half the window', () => {
    // The hog's requests always in flight over a 5 s window; a neighbour's request every 2 s, each waiting 0.4 s; another's
    // 0.3 s once. Neither in flight for half the window (the bound's rule once), yet 1.5 s of it together.
    const found = run(50, (i) => ({ 'hog/a': 3, ...(i % 20 >= 1 && i % 20 <= 4 ? { 'calm/b': 1 } : {}), ...(i >= 30 && i < 33 ? { 'quiet/c': 1 } : {}) }), { windowMs: 5000 });
    expect(found).toHaveLength(1);
    expect(sustainedCulprit(found[0]!)).toMatchObject({ app: 'hog/a' });
    // One of the neighbours' requests that waited 0.3 s is not enough (a tenth is 0.5 s).
    const once = run(50, (i) => ({ 'hog/a': 3, ...(i >= 30 && i < 33 ? { 'quiet/c': 1 } : {}) }), { windowMs: 5000 });
    expect(once.map((u) => sustainedCulprit(u))).toEqual([undefined]);
    // The same saturating app alone is not held, its own requests waiting all the window.
    expect(run(50, () => ({ 'hog/a': 3, 'hog/b': 1 }), { windowMs: 5000 }).map((u) => sustainedCulprit(u))).toEqual([undefined]);
  });

  it('holds nobody to a busy app alone on its shard, or beside its own project only', () => {
    expect(sustainedCulprit(use({ 'hog/a': 1 }, ['hog']))).toBeUndefined();
    expect(sustainedCulprit(use({ 'hog/a': 0.9, 'hog/b': 0.1 }, ['hog']))).toBeUndefined();
  });

  it('holds nobody when no app had more than half of the thread', () => {
    expect(sustainedCulprit(use({ 'hog/a': 0.5, 'calm/b': 0.5 }, ['hog', 'calm']))).toBeUndefined();
    expect(sustainedCulprit(use({ 'a/a': 0.4, 'b/b': 0.3, 'c/c': 0.3 }, ['a', 'b', 'c']))).toBeUndefined();
  });

  it('holds a project splitting its work over two apps, by the app of it found most', () => {
    const samples = [['evil/a'], ['evil/b'], ['evil/a'], ['calm/x'], ['evil/b'], ['evil/a'], ['evil/b']];
    expect(sustainedCulprit(use({}, ['calm']), samples)).toEqual({ app: 'evil/a', share: expect.closeTo(6 / 7) as number });
    expect(sustainedCulprit(use({ 'evil/a': 0.35, 'evil/b': 0.3, 'calm/x': 0.35 }, ['calm']))).toEqual({ app: 'evil/a', share: expect.closeTo(0.65) as number });
  });

  it("takes the thread's word over the requests in flight: a neighbour flooded with requests is not the one computing", () => {
    // The attacker computes with 2 requests and floods the neighbour's app with 18 that wait for the thread.
    const flooded = use({ 'hog/a': 0.1, 'calm/b': 0.9 }, ['hog', 'calm']);
    expect(sustainedCulprit(flooded)).toMatchObject({ app: 'calm/b' }); // by requests alone: the wrong one
    const samples = [['hog/a'], ['hog/a'], [], ['hog/a'], ['calm/b'], ['hog/a'], ['hog/a']];
    expect(sustainedCulprit(flooded, samples)).toEqual({ app: 'hog/a', share: expect.closeTo(5 / 7) as number });
  });

  it('holds an app computing with nothing in flight (after its answers) while another project waits, by the thread', () => {
    expect(sustainedCulprit(use({ 'calm/b': 1 }, ['calm']), [['hog/a'], ['hog/a'], ['hog/a'], ['calm/b']])).toEqual({ app: 'hog/a', share: expect.closeTo(0.75) as number });
  });

  it('holds nobody when the samples name no app in the majority (the runtime itself, or apps in turn)', () => {
    const busy = use({ 'hog/a': 0.9, 'calm/b': 0.1 }, ['hog', 'calm']);
    expect(sustainedCulprit(busy, [[], [], ['hog/a'], [], ['hog/a']])).toBeUndefined();
    // Code two isolates' chunks claim counts half for each.
    expect(
      sustainedCulprit(busy, [
        ['hog/a', 'calm/b'],
        ['hog/a', 'calm/b'],
      ]),
    ).toBeUndefined();
  });
});
