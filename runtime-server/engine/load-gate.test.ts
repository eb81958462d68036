import { describe, expect, it } from 'vitest';
import type { PreparedBuild } from './build-store.ts';
import type { RoutedApp } from './dispatcher/routing-table.ts';
import type { LoadCheck } from './load-checker.ts';
import { LoadGate, type BuildChecker } from './load-gate.ts';
import { PassPlan } from './pass-plan.ts';
import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

/** A checker that answers from the build's name: `heavy*` loads in 800 ms of CPU time, `broken*` fails for now in 800 ms, others in 10 ms. */
class FakeChecker implements BuildChecker {
  readonly checked: string[] = [];
  total = 0;

  check(key: string, app: RoutedApp): Promise<LoadCheck> {
    this.checked.push(key);
    this.total += 1;
    if (app.build.startsWith('broken')) return Promise.resolve({ loaded: false, error: 'the dispatcher answered 500', hung: false, cpuMs: 800 });
    return Promise.resolve({ loaded: true, hung: false, cpuMs: app.build.startsWith('heavy') ? 800 : 10 });
  }

  warm(): void {}

  stop(): Promise<void> {
    return Promise.resolve();
  }
}

const live = (project: string, appId: string, buildId: string, env: Record<string, string> = {}): LiveApp => ({
  app: { project, appId, buildId, env, hostnames: [] },
  build: { buildId } as PreparedBuild,
});

/** A pass asking each of `apps` ([project, app, build]) to serve its build, over what `served` serves. */
function pass(gate: LoadGate, served: Map<string, Served>, apps: ReadonlyArray<readonly [string, string, string]>): PassPlan {
  const plan = new PassPlan(
    served,
    apps.map(([p, a]) => `${p}/${a}`),
  );
  for (const [project, appId, buildId] of apps) {
    const l = live(project, appId, buildId);
    plan.next.set(`${project}/${appId}`, { live: l, id: gate.idOf(l, false), tailed: false });
  }
  return plan;
}

/** What a pass commits: what it serves becomes what is served. */
function commit(served: Map<string, Served>, plan: PassPlan): void {
  served.clear();
  for (const [key, s] of plan.next) served.set(key, s);
}

describe('LoadGate', () => {
  it('leaves a project’s changes past its share of the checker for the next pass, checking every other project’s in this one', async () => {
    const checker = new FakeChecker();
    const gate = new LoadGate(checker, { shareMs: 1500 });
    const served = new Map<string, Served>();
    const apps = [...Array.from({ length: 6 }, (_, i) => ['tenant', `heavy-${i}`, 'heavy'] as const), ['victim', 'site', 'calm'] as const];
    const first = pass(gate, served, apps);
    await gate.check(first, new Map());
    // Two heavy loads reach the share; the victim's, last in the pass, is checked all the same.
    expect(checker.checked).toEqual(['tenant/heavy-0', 'tenant/heavy-1', 'victim/site']);
    expect([...first.deferred]).toEqual(['tenant/heavy-2', 'tenant/heavy-3', 'tenant/heavy-4', 'tenant/heavy-5']);
    expect(first.failures.size).toBe(0);
    expect(first.next.has('tenant/heavy-2')).toBe(false);
    commit(served, first);
    const second = pass(gate, served, apps);
    await gate.check(second, new Map());
    expect(checker.checked.slice(3)).toEqual(['tenant/heavy-2', 'tenant/heavy-3']);
  });

  it('counts the checks of one user’s projects against one share: a tenant’s twelve projects do not get twelve', async () => {
    const checker = new FakeChecker();
    const accountOf = (project: string) => (project.startsWith('tenant-') ? 'user:mallory' : `project:${project}`);
    const gate = new LoadGate(checker, { shareMs: 1500, accountOf });
    const apps = [...Array.from({ length: 12 }, (_, i) => [`tenant-${i}`, 'app', 'heavy'] as const), ['victim', 'site', 'calm'] as const];
    const plan = pass(gate, new Map(), apps);
    await gate.check(plan, new Map());
    // Two heavy loads reach the account's share; without accounts each project would have had one, all twelve checked.
    expect(checker.checked).toEqual(['tenant-0/app', 'tenant-1/app', 'victim/site']);
    expect(plan.deferred.size).toBe(10);
  });

  it('goes on with the changes it left for later though the project’s other builds fail, and stops passing once nothing is left', async () => {
    const checker = new FakeChecker();
    let now = 0;
    const gate = new LoadGate(checker, { shareMs: 250, now: () => now });
    const served = new Map<string, Served>();
    const apps = [
      ['t', 'a-broken', 'broken-1'],
      ['t', 'b-broken', 'broken-2'],
      ['t', 'c', 'heavy'],
      ['t', 'd', 'heavy'],
    ] as const;
    const left: string[][] = [];
    for (let n = 0; n < 5; n += 1) {
      const plan = pass(gate, served, apps);
      await gate.check(plan, new Map());
      left.push([...plan.deferred]);
      commit(served, plan);
    }
    // Pass 1 checks a broken build (failing for now) and leaves the rest; those go first in the next passes, and a
    // build failing for now is not tried again before its backoff: nothing is left after a few passes.
    expect(left[0]).toEqual(['t/b-broken', 't/c', 't/d']);
    expect(left.at(-1)).toEqual([]);
    expect(served.has('t/c') && served.has('t/d')).toBe(true);
    const checks = checker.checked.length;
    // Past its backoff a build failing for now is tried again.
    now += 60_000;
    await gate.check(pass(gate, served, apps), new Map());
    expect(checker.checked.slice(checks)).toEqual(['t/a-broken']);
  });

  it('leaves a rollout’s change for later as one: the app keeps what it served when its second release does not fit', async () => {
    const checker = new FakeChecker();
    const gate = new LoadGate(checker, { shareMs: 1500 });
    const before = live('t', 'web', 'calm');
    const served = new Map<string, Served>([['t/web', { live: before, id: gate.idOf(before, false), tailed: false }]]);
    const plan = pass(gate, served, [['t', 'other', 'heavy']]);
    const stable = live('t', 'web', 'heavy-3');
    const canary = live('t', 'web', 'heavy-4');
    plan.next.set('t/web', { live: stable, id: gate.idOf(stable, false), tailed: false, canary: { live: canary, id: gate.idOf(canary, false), tag: 'x' } });
    await gate.check(plan, new Map());
    expect(plan.deferred.has('t/web')).toBe(true);
    expect(plan.next.get('t/web')?.live.build.buildId).toBe('calm');
    expect(plan.failures.has('t/web')).toBe(false);
  });
});
