import { describe, expect, it } from 'vitest';
import { AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { silentRuntimeLogger } from '../../src/runtime-contract/log.ts';
import { AppLimits, PROJECT_RELEASE_STOPS, PROJECT_STOPS, type AppLimitsOptions } from './app-limits.ts';
import type { Refusal } from './entry-proxy.ts';
import type { Generation } from './generation.ts';
import type { ShardStop } from './shard.ts';
import type { SustainedUse } from './sustained-cpu.ts';
import { UpstreamPool } from './upstream.ts';

const limits = (createdAt?: (key: string) => number | undefined, memoryAccount = false, logs = new AppLogs(), accounts?: AppLimitsOptions['accounts']) =>
  new AppLimits({
    ...(createdAt ? { createdAt } : {}),
    ...(accounts ? { accounts } : {}),
    memoryAccount,
    cpuLimitMs: 500,
    sustainedWindowMs: 5000,
    quarantine: { initialMs: 60_000, maxMs: 3_600_000 },
    probationMs: 60_000,
    blame: { lateMs: 1_000, endedGraceMs: 100 },
    log: silentRuntimeLogger,
    logs,
  });

/** A CPU stop of shard 0 while `apps` each had a request in flight there. */
function stopWhile(apps: string[]): ShardStop {
  const pool = new UpstreamPool();
  for (const app of apps) pool.enter(app, 'GET', '/');
  return { kind: 'cpu', detail: 'stuck', generation: { shard: 0, upstream: { pool } } as unknown as Generation };
}

describe('AppLimits: who is held to a stopped shard', () => {
  it('quarantines the one suspect, and puts suspects of several projects on probation, project by project', () => {
    const l = limits();
    l.stopped(stopWhile(['p/looper']), () => 'b1');
    expect(l.quarantine('p/looper')).toMatchObject({ reason: 'CPULimitExceeded' });
    l.stopped(stopWhile(['q/a', 'r/b']), () => 'b1');
    expect([l.quarantine('q/a'), l.quarantine('r/b')]).toEqual([undefined, undefined]);
    expect(l.onProbation()).toEqual(['q/a', 'r/b']);
    // An app q makes afterwards shares q's turn: it cannot run beside r's suspect to keep the next verdict shared.
    const pool = new UpstreamPool();
    expect(l.refusal('r/b', 0, pool)).toBeUndefined(); // r takes the shard's turn
    const done = pool.enter('r/b', 'GET', '/');
    expect(l.refusal('q/fresh', 0, pool)).toMatchObject({ status: 503, reason: 'Probation' });
    done();
    expect(l.refusal('t/unrelated', 0, pool)).toBeUndefined();
  });

  it("lays a memory or heap stop V8's account names nobody for on nobody, not on the requests in flight, and sends their GETs again", () => {
    const l = limits(undefined, true);
    for (const kind of ['memory', 'heap'] as const) {
      const stop = { ...stopWhile(['victim/busy']), kind };
      l.stopped(stop, () => 'b1');
      expect(l.quarantine('victim/busy')).toBeUndefined();
      expect(l.onProbation()).toEqual([]);
      // Nobody's: every project's GET is sent again (once: the entry point's rule), as a retry would be.
      expect(l.resendable('victim/busy', stop.generation.upstream.pool)).toBe(true);
    }
    // A CPU stop without the thread's answer is still judged from the requests, and sends nothing again.
    const cpu = stopWhile(['victim/busy']);
    l.stopped(cpu, () => 'b1');
    expect(l.quarantine('victim/busy')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(l.resendable('other/app', cpu.generation.upstream.pool)).toBe(false);
  });

  it("quarantines every project V8's account lays a memory stop on, and sends other projects' GETs again", () => {
    const l = limits(undefined, true);
    const stop = { ...stopWhile(['victim/busy']), kind: 'memory' as const };
    l.stopped(
      stop,
      () => 'b1',
      () => undefined,
      ['grow/a', 'decoy/b'],
    );
    expect(l.quarantine('grow/a')).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(l.quarantine('decoy/b')).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(l.onProbation()).toEqual([]);
    expect(l.resendable('victim/busy', stop.generation.upstream.pool)).toBe(true);
    expect(l.resendable('grow/other', stop.generation.upstream.pool)).toBe(false);
  });

  it("holds each suspect to a stop only one project's apps could have made, and never another project's app", () => {
    const l = limits();
    l.stopped(stopWhile(['p/holder', 'p/spinner']), () => 'b1');
    expect(l.quarantine('p/holder')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(l.quarantine('p/spinner')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(l.quarantine('q/neighbour')).toBeUndefined();
  });

  it('holds a whole project back after it stopped shards with fresh apps', () => {
    const l = limits();
    for (let i = 0; i < PROJECT_STOPS - 1; i++) {
      l.stopped(stopWhile([`p/spin-${i}`]), () => 'b1');
      l.forget(`p/spin-${i}`); // deleted: its own quarantine goes with it
    }
    expect(l.quarantine('p/next')).toBeUndefined();
    l.stopped(stopWhile(['p/spin-last']), () => 'b1');
    const held = l.quarantine('p/next');
    expect(held).toMatchObject({ reason: 'CPULimitExceeded', project: true });
    expect(l.refusal('p/next', 0, new UpstreamPool())).toMatchObject({ status: 503, reason: 'CPULimitExceeded', detail: expect.stringContaining('project is held back') });
    expect(l.quarantine('q/neighbour')).toBeUndefined();
  });

  it("counts the stops of one user's projects together: past the bound all of them are held back, and another of them at its first stop", () => {
    // m1, m2 and m3 were created by one user (m3 has no app here when the bound is reached); q is another's.
    const accountOf = (project: string) => (project.startsWith('m') ? 'user:mallory' : `project:${project}`);
    const here = ['m1', 'm2', 'q'];
    const l = limits(undefined, false, new AppLogs(), { of: accountOf, projects: (account) => here.filter((p) => accountOf(p) === account) });
    // One stop from each of its projects in turn: per project, none would have reached the bound.
    for (let i = 0; i < PROJECT_STOPS; i++) {
      const project = i % 2 === 0 ? 'm1' : 'm2';
      expect(l.quarantine(`${project}/other`)).toBeUndefined();
      l.stopped(stopWhile([`${project}/spin-${i}`]), () => 'b1');
    }
    expect(l.quarantine('m1/other')).toMatchObject({ project: true });
    expect(l.quarantine('m2/other')).toMatchObject({ project: true });
    expect(l.refusal('m2/other', 0, new UpstreamPool())).toMatchObject({ detail: expect.stringContaining('other projects of the user who created it') });
    expect(l.quarantine('q/neighbour')).toBeUndefined();
    // A project of the user's made afterwards is held back at its first stop.
    expect(l.quarantine('m3/other')).toBeUndefined();
    l.stopped(stopWhile(['m3/spin']), () => 'b1');
    expect(l.quarantine('m3/other')).toMatchObject({ project: true });
    // A new release of another of the user's projects that stops a shard loses that release only, as anywhere.
    l.stopped(
      stopWhile(['m4/rolling']),
      () => 'b1',
      () => 'b-new',
    );
    expect(l.quarantine('m4/rolling')).toBeUndefined();
    expect(l.quarantine('m4/other')).toBeUndefined();
    // Another user's project still has its own count.
    l.stopped(stopWhile(['q/spin']), () => 'b1');
    expect(l.quarantine('q/neighbour')).toBeUndefined();
  });

  it("holds suspects of several projects of one user to a stop, as one project's, and sends none of that user's requests again", () => {
    const accountOf = (project: string) => (project.startsWith('m') ? 'user:mallory' : `project:${project}`);
    const l = limits(undefined, false, new AppLogs(), { of: accountOf, projects: () => [] });
    const stop = stopWhile(['m1/spin', 'm2/spin']);
    l.stopped(stop, () => 'b1');
    // Per project they would take turns on probation, nobody held.
    expect(l.onProbation()).toEqual([]);
    expect(l.quarantine('m1/spin')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(l.quarantine('m2/spin')).toMatchObject({ reason: 'CPULimitExceeded' });
    // The thread named m1's code: no request of mallory's projects is sent again, another user's is.
    const told = stopWhile(['m2/other', 'q/site']);
    l.stopped(told, () => 'b1', undefined, ['m1/again']);
    expect(l.resendable('m2/other', told.generation.upstream.pool)).toBe(false);
    expect(l.resendable('q/site', told.generation.upstream.pool)).toBe(true);
  });

  it('a rollout whose new release stops the shard again and again loses that release only: no quarantine, no hold', () => {
    const l = limits();
    for (let i = 0; i < PROJECT_STOPS + 2; i++)
      l.stopped(
        stopWhile(['p/rolling']),
        () => 'b1',
        () => 'b-new',
      );
    expect(l.quarantine('p/rolling')).toBeUndefined();
    expect(l.quarantine('p/other')).toBeUndefined();
  });

  it('a stop one suspect of the project is spared for spares its siblings too, and counts for nothing but that release', () => {
    const l = limits();
    l.stopped(stopWhile(['p/a']), () => 'b1');
    l.stopped(stopWhile(['p/b']), () => 'b1'); // two quarantining stops
    l.stopped(
      stopWhile(['p/rolling', 'p/sibling']),
      () => 'b1',
      (key) => (key === 'p/rolling' ? 'b-new' : undefined),
    );
    expect(l.quarantine('p/sibling')).toBeUndefined();
    expect(l.quarantine('p/rolling')).toBeUndefined();
    expect(l.quarantine('p/next')).toBeUndefined(); // not held: the third stop was the release's
  });

  it('holds a project back that keeps bringing new releases that stop shards', () => {
    const l = limits();
    for (let i = 0; i < PROJECT_RELEASE_STOPS - 1; i++)
      l.stopped(
        stopWhile(['p/rolling']),
        () => 'b1',
        () => `b-new-${i}`,
      );
    expect(l.quarantine('p/rolling')).toBeUndefined();
    l.stopped(
      stopWhile(['p/rolling']),
      () => 'b1',
      () => 'b-new-last',
    );
    expect(l.quarantine('p/rolling')).toMatchObject({ project: true });
    expect(l.quarantine('q/neighbour')).toBeUndefined();
  });

  it('counts toward the hold only apps made within the window: an old app blamed for stalls costs its project no more than its own quarantine', () => {
    const now = Date.now();
    const l = limits((key) => (key.startsWith('victim/') ? now - 30 * 24 * 3_600_000 : now - 60_000));
    for (let i = 0; i < PROJECT_STOPS + 1; i++) l.stopped(stopWhile(['victim/shop']), () => 'b1');
    expect(l.quarantine('victim/shop')).toMatchObject({ reason: 'CPULimitExceeded', offences: PROJECT_STOPS + 1 });
    expect(l.quarantine('victim/blog')).toBeUndefined(); // the project's other apps are served
    for (let i = 0; i < PROJECT_STOPS; i++) l.stopped(stopWhile([`attacker/fresh-${i}`]), () => 'b1');
    expect(l.quarantine('attacker/next')).toMatchObject({ project: true });
  });

  it('counts every stop the thread laid on a project toward its hold, its apps old or new (found by a hostile run)', () => {
    const now = Date.now();
    const l = limits(() => now - 30 * 24 * 3_600_000);
    // Each of the project's old apps stopped the shard once, the thread found in its code each time.
    for (let i = 0; i < PROJECT_STOPS; i++) l.stopped(stopWhile([]), () => 'b1', undefined, [`attacker/old-${i}`]);
    expect(l.quarantine('attacker/old-next')).toMatchObject({ project: true });
    // Memory laid on several projects at once (each held a quarter) is not told to be one's: the age rule holds.
    const shared = limits(() => now - 30 * 24 * 3_600_000, true);
    for (let i = 0; i < PROJECT_STOPS; i++) shared.stopped({ ...stopWhile([]), kind: 'memory' }, () => 'b1', undefined, [`hog/app-${i}`, 'victim/old']);
    expect(shared.quarantine('victim/other')).toBeUndefined();
  });
});

describe('AppLimits: who is held to a saturated shard', () => {
  /** A shard saturated over 5 s with `inFlight` requests in flight (each answered by a cut it records), the hog's by requests. */
  function saturated(inFlight: Record<string, number>) {
    const pool = new UpstreamPool();
    const cut: Array<{ app: string; refusal: Refusal }> = [];
    for (const [app, n] of Object.entries(inFlight)) for (let i = 0; i < n; i++) pool.enter(app, 'GET', '/burn', (refusal) => cut.push({ app, refusal }) > 0);
    const total = Object.values(inFlight).reduce((sum, n) => sum + n, 0);
    const use: SustainedUse = {
      wallMs: 5000,
      cpuMs: 4900,
      busy: 0.98,
      byRequests: new Map(Object.entries(inFlight).map(([app, n]) => [app, n / total])),
      waiting: new Set(Object.keys(inFlight).map((app) => app.split('/')[0]!)),
      waitedMs: new Map(Object.keys(inFlight).map((app) => [app.split('/')[0]!, 5000])),
    };
    const stop = { generation: { shard: 0, upstream: { pool } } as unknown as Generation };
    /** `l` judges the window, the thread sampled as `samples` (undefined: not asked), `spare` asked of the app held. */
    const judge = (l: AppLimits, samples?: string[][], spare: (key: string) => string | undefined = () => undefined) => l.sustained(use, samples, stop, () => 'b1', spare);
    return { use, cut, stop, judge };
  }

  it('quarantines the app whose code held the thread while another project waited, says why, and cuts its requests short', () => {
    const logs = new AppLogs();
    const withLogs = limits(undefined, false, logs);
    const { cut, judge } = saturated({ 'hog/burn': 2, 'calm/site': 8 });
    // The thread names the hog, though the neighbour's requests (waiting for it) are more.
    const held = judge(withLogs, [['hog/burn'], ['hog/burn'], [], ['hog/burn'], ['calm/site']]);
    expect(held).toMatchObject({ app: 'hog/burn', end: false, detail: expect.stringMatching(/it held 60 % of the shard's CPU time over 5 s/) as string });
    const q = withLogs.quarantine('hog/burn');
    expect(q).toMatchObject({ reason: 'CPULimitExceeded', sustained: true, offences: 1 });
    expect(withLogs.quarantine('calm/site')).toBeUndefined();
    expect(cut.map((c) => c.app)).toEqual(['hog/burn', 'hog/burn']);
    expect(cut[0]!.refusal).toMatchObject({
      status: 503,
      reason: 'CPULimitExceeded',
      detail: expect.stringMatching(/^The app was stopped: its code held most of its runtime shard's CPU time for 5 s while other projects' requests waited.* It is served again in 60 s\.$/) as string,
    });
    expect(withLogs.why('CPULimitExceeded', false, true)).toMatch(/held most of its runtime shard's CPU time for 5 s/);
    expect(logs.recent('hog/burn').at(-1)).toMatchObject({ outcome: 'exceededCpu', buildId: 'b1', request: { url: '/burn' }, status: 503 });
  });

  it('holds nobody to an app busy alone on its shard, or when the thread names no app in the majority', () => {
    const l = limits();
    const alone = saturated({ 'hog/burn': 20 });
    expect(alone.judge(l, [['hog/burn'], ['hog/burn']])).toBeUndefined();
    expect(alone.judge(l)).toBeUndefined();
    const mixed = saturated({ 'hog/burn': 2, 'calm/site': 2 });
    expect(mixed.judge(l, [[], [], ['hog/burn']])).toBeUndefined();
    expect([alone.cut, mixed.cut, l.quarantine('hog/burn')]).toEqual([[], [], undefined]);
  });

  it('judges by the requests in flight when the thread is not asked', () => {
    const l = limits();
    const { cut, judge } = saturated({ 'hog/burn': 9, 'calm/site': 1 });
    expect(judge(l)).toMatchObject({ app: 'hog/burn', end: false });
    expect(cut).toHaveLength(9);
  });

  it("has the shard ended when the app's code runs with none of its requests there to cut, and the stop then quarantines it as sustained", () => {
    const l = limits();
    const { stop, judge } = saturated({ 'calm/site': 3 });
    const held = judge(l, [['hog/later'], ['hog/later'], ['hog/later']]);
    expect(held).toMatchObject({ app: 'hog/later', end: true });
    expect(l.quarantine('hog/later')).toBeUndefined(); // the stop does it
    l.stopped(
      { ...stop, kind: 'cpu', detail: held!.detail, sustained: true },
      () => 'b1',
      () => undefined,
      ['hog/later'],
    );
    expect(l.quarantine('hog/later')).toMatchObject({ reason: 'CPULimitExceeded', sustained: true });
    expect(l.quarantine('calm/site')).toBeUndefined();
  });

  it('suspends a new release in a rollout instead of quarantining the app', () => {
    const l = limits();
    const { cut, judge } = saturated({ 'hog/burn': 3, 'calm/site': 1 });
    expect(judge(l, undefined, () => 'b2')).toMatchObject({ app: 'hog/burn', end: false });
    expect(l.quarantine('hog/burn')).toBeUndefined();
    expect(cut[0]!.refusal).toMatchObject({ status: 503, reason: 'CPULimitExceeded', retryAfter: '1' });
  });
});
