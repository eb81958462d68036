import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { RuntimeReplicaView, type ReplicaLease, type ReplicaSource } from '../../../src/platform/runtime-replicas.ts';
import type { RuntimeAppReport } from './replica-reports.ts';
import { changedAppKeys, indexReports, ReplicaReports } from './replica-reports.ts';
import { ServingChanges } from './serving-changes.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';

const report = (app: string, over: Partial<RuntimeAppReport> = {}): RuntimeAppReport => ({ namespace: 'p', app, hosts: [], observedGeneration: 1, ...over });
const reportObject = (replica: string, project: string, apps: RuntimeAppReport[], resourceVersion = '1'): RuntimeReplicaReport => ({
  metadata: { namespace: 'cw', name: `${replica}.${project}`, uid: `${replica}.${project}`, resourceVersion },
  spec: { replica, project, apps: apps.map((a) => ({ ...a, namespace: project, hosts: [...a.hosts] })) },
});
const of = (...apps: RuntimeAppReport[]) => reportObject('r1', 'p', apps);

describe('changedAppKeys', () => {
  it('names the apps whose report was added, changed or dropped, and no other', () => {
    const before = indexReports(of(report('a'), report('b'), report('c')));
    const after = indexReports(of(report('a'), report('b', { servingBuildId: 'b-1', servedGeneration: 1 }), report('d')));
    expect(changedAppKeys(before, after).sort()).toEqual(['p/b', 'p/c', 'p/d']);
  });

  it('is empty when nothing changed (a readiness-only rewrite)', () => {
    expect(changedAppKeys(indexReports(of(report('a'))), indexReports(of(report('a'))))).toEqual([]);
  });

  it('names every app of a report object that is gone', () => {
    expect(changedAppKeys(indexReports(of(report('a'), report('b'))), indexReports(undefined)).sort()).toEqual(['p/a', 'p/b']);
  });
});

/** An informer's cache as the view reads it, with the writes a test makes. */
function objects<T extends KubeObject>(): ReplicaSource<T> & { upsert(obj: T): void; remove(obj: T): void } {
  const byKey = new Map<string, T>();
  const key = (obj: T) => `${obj.metadata?.namespace}/${obj.metadata?.name}`;
  return {
    upsert: (obj) => void byKey.set(key(obj), obj),
    remove: (obj) => void byKey.delete(key(obj)),
    get: (k) => byKey.get(k),
    list: () => [...byKey.values()],
    onChange: () => () => {},
    hasSynced: () => true,
    waitForSync: async () => {},
  };
}

describe('ReplicaReports', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  function world(replicaNames: string[]) {
    const replicas = objects<RuntimeReplica>();
    const leases = objects<ReplicaLease>();
    const reports = objects<RuntimeReplicaReport>();
    for (const name of replicaNames) {
      replicas.upsert({ metadata: { namespace: 'cw', name }, spec: { ready: true } });
      leases.upsert({ metadata: { namespace: 'cw', name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date(t0).toISOString() } });
    }
    const view = new RuntimeReplicaView(replicas, leases, reports);
    return {
      reports,
      aggregate: new ReplicaReports(
        view,
        reports,
        () => ['p/a', 'p/b', 'q/a'],
        () => t0,
      ),
    };
  }

  it('reads an app’s report on each counted replica from that replica’s object for the app’s project', () => {
    const { reports, aggregate } = world(['r1', 'r2']);
    reports.upsert(reportObject('r1', 'p', [report('a', { servedGeneration: 1 }), report('b')]));
    reports.upsert(reportObject('r2', 'p', [report('a', { servedGeneration: 2 })]));
    reports.upsert(reportObject('r1', 'q', [report('a', { servedGeneration: 3 })]));
    expect(aggregate.app('p', 'a').map((r) => r?.servedGeneration)).toEqual([1, 2]);
    // r2 has no report of p/b, nor any object for q: it has not acted on those apps.
    expect(aggregate.app('p', 'b').map((r) => r?.app)).toEqual(['b', undefined]);
    expect(aggregate.app('q', 'a').map((r) => r?.servedGeneration)).toEqual([3, undefined]);
  });

  it('enqueues for a report object’s change only the apps of that project whose report changed, and every one of a deleted object', () => {
    const { reports, aggregate } = world(['r1']);
    const first = reportObject('r1', 'p', [report('a'), report('b')]);
    reports.upsert(first);
    expect(aggregate.onReport(first).sort()).toEqual(['p/a', 'p/b']);
    const second = reportObject('r1', 'p', [report('a'), report('b', { observedGeneration: 2 })], '2');
    reports.upsert(second);
    expect(aggregate.onReport(second)).toEqual(['p/b']);
    reports.remove(second);
    expect(aggregate.onReport(second).sort()).toEqual(['p/a', 'p/b']);
  });

  describe('reports left out under a mark', () => {
    const settings = { domain: 'apps.test', scheme: 'https' as const };
    const appObject = (name: string, resourceVersion: string, generation = 1, build = 'b-1'): RuntimeApp => ({
      metadata: { namespace: 'p', name, resourceVersion, generation },
      spec: { displayName: name, activeBuildId: build },
    });
    function marked(apps: RuntimeApp[]) {
      const replicas = objects<RuntimeReplica>();
      const leases = objects<ReplicaLease>();
      const reports = objects<RuntimeReplicaReport>();
      replicas.upsert({ metadata: { namespace: 'cw', name: 'r1' }, spec: { ready: true } });
      leases.upsert({ metadata: { namespace: 'cw', name: 'r1' }, spec: { holderIdentity: 'r1', leaseDurationSeconds: 40, renewTime: new Date(t0).toISOString() } });
      const changes = new ServingChanges();
      for (const app of apps) changes.changed(`p/${app.metadata?.name}`, app);
      const list = { list: (namespace?: string) => apps.filter((a) => namespace === undefined || a.metadata?.namespace === namespace) };
      const aggregate = new ReplicaReports(
        new RuntimeReplicaView(replicas, leases, reports),
        reports,
        () => apps.map((a) => `p/${a.metadata?.name}`),
        () => t0,
        { implied: { apps: list, changes } },
      );
      const withMark = (acted: string | undefined, listed: RuntimeAppReport[] = [], resourceVersion = acted ?? '1') => {
        const object = reportObject('r1', 'p', listed, resourceVersion);
        return { ...object, spec: { ...object.spec, ...(acted ? { acted, defaultHost: settings } : {}) } };
      };
      return { reports, aggregate, changes, withMark };
    }

    it('reads an app the report leaves out as served on its default host once the mark has passed its last change, and as not acted on before', () => {
      const a = appObject('a', '20', 3);
      const { reports, aggregate, withMark } = marked([a]);
      reports.upsert(withMark('19'));
      expect(aggregate.app('p', 'a', a)).toEqual([undefined]);
      reports.upsert(withMark('20'));
      expect(aggregate.app('p', 'a', a)).toEqual([
        { namespace: 'p', app: 'a', servingBuildId: 'b-1', url: 'https://a.p.apps.test', hosts: ['a.p.apps.test'], servedGeneration: 3, observedGeneration: 3 },
      ]);
      // Listed, the report is read as it is; without the app object, nothing is implied.
      reports.upsert(withMark('20', [report('a', { observedGeneration: 3, failure: { reason: 'Retrying', buildId: 'b-1', message: 'x' } })], '21'));
      expect(aggregate.app('p', 'a', a)[0]?.failure?.reason).toBe('Retrying');
      reports.upsert(withMark('20', [], '22'));
      expect(aggregate.app('p', 'a')).toEqual([undefined]);
    });

    it('holds an app to its last change a replica acts on, not to the operator’s own writes of its conditions', () => {
      const a = appObject('a', '20');
      const { reports, aggregate, changes, withMark } = marked([a]);
      const conditionsWritten: RuntimeApp = { ...a, metadata: { ...a.metadata, resourceVersion: '25' }, status: { conditions: [] } };
      changes.changed('p/a', conditionsWritten);
      reports.upsert(withMark('22'));
      expect(aggregate.app('p', 'a', conditionsWritten)[0]?.servedGeneration).toBe(1);
      // A new generation is a change it acts on: not served until the mark passes it.
      const deployed: RuntimeApp = { ...conditionsWritten, metadata: { ...conditionsWritten.metadata, resourceVersion: '30', generation: 2 }, spec: { displayName: 'a', activeBuildId: 'b-2' } };
      changes.changed('p/a', deployed);
      expect(aggregate.app('p', 'a', deployed)).toEqual([undefined]);
      reports.upsert(withMark('30', [], '31'));
      expect(aggregate.app('p', 'a', deployed)[0]).toMatchObject({ servingBuildId: 'b-2', servedGeneration: 2 });
    });

    it('counts a replica as still serving a deleted app until its report leaves the app out under a mark past the deletion', () => {
      const a = appObject('a', '20');
      const { reports, aggregate, changes, withMark } = marked([a]);
      const deleted: RuntimeApp = { ...a, metadata: { ...a.metadata, resourceVersion: '30', deletionTimestamp: '2026-01-01T00:00:00Z' } };
      changes.changed('p/a', deleted);
      // Served on its default host under a mark before the deletion, then listed (a failure), then let go.
      reports.upsert(withMark('25'));
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual(['r1']);
      reports.upsert(withMark('30', [report('a', { failure: { reason: 'Retrying', buildId: 'b-1', message: 'x' } })], '31'));
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual(['r1']);
      reports.upsert(withMark('30', [], '32'));
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual([]);
      // Without a mark a report lists every app served: one left out is let go, unless the report was cut.
      reports.upsert(withMark(undefined, [], '33'));
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual([]);
      const cut = withMark(undefined, [], '34');
      reports.upsert({ ...cut, spec: { ...cut.spec, omittedApps: 3 } });
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual(['r1']);
      // A replica with no report of the project serves none of its apps.
      reports.remove(cut);
      expect(aggregate.stillServing('p', 'a', deleted)).toEqual([]);
    });

    it('re-checks the apps a moving mark passed, those whose listed report came or went, and every unlisted one when the mark goes', () => {
      const apps = [appObject('a', '10'), appObject('b', '20'), appObject('c', '30')];
      const { reports, aggregate, withMark } = marked(apps);
      const first = withMark('15', [report('c')], '40');
      reports.upsert(first);
      expect(aggregate.onReport(first).sort()).toEqual(['p/a', 'p/c']);
      const moved = withMark('25', [report('c')], '41');
      reports.upsert(moved);
      expect(aggregate.onReport(moved)).toEqual(['p/b']);
      // c no longer listed and passed by the mark; a and b unchanged.
      const all = withMark('35', [], '42');
      reports.upsert(all);
      expect(aggregate.onReport(all)).toEqual(['p/c']);
      const noMark = withMark(undefined, [], '43');
      reports.upsert(noMark);
      expect(aggregate.onReport(noMark).sort()).toEqual(['p/a', 'p/b', 'p/c']);
    });
  });

  describe('while no replica counts', () => {
    afterEach(() => void vi.useRealTimers());

    function fleet(options: { unavailableGraceMs?: number; startingLimitMs?: number } = {}) {
      const replicas = objects<RuntimeReplica>();
      const leases = objects<ReplicaLease>();
      const rechecked: string[][] = [];
      const aggregate = new ReplicaReports(new RuntimeReplicaView(replicas, leases, objects()), objects(), () => ['p/a', 'q/b'], Date.now, {
        unavailableGraceMs: 30_000,
        startingLimitMs: 300_000,
        ...options,
        onTimeUp: (keys) => rechecked.push(keys),
      });
      const add = (name: string, spec: RuntimeReplica['spec']): RuntimeReplica => {
        const replica: RuntimeReplica = { metadata: { namespace: 'cw', name, creationTimestamp: new Date(Date.now()).toISOString() }, spec };
        replicas.upsert(replica);
        leases.upsert({ metadata: { namespace: 'cw', name }, spec: { holderIdentity: name, leaseDurationSeconds: 3600, renewTime: new Date(Date.now()).toISOString() } });
        return replica;
      };
      return { replicas, aggregate, rechecked, add };
    }

    it('is starting while a replica takes traffic or has just been created, waiting for the grace once none is, then unavailable, re-checking every app at each change', () => {
      vi.useFakeTimers({ now: t0 });
      const { replicas, aggregate, rechecked, add } = fleet();
      const replica = add('r1', { ready: false, takesTraffic: false });
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      expect(aggregate.availability()).toBe('starting');

      // It stops: what the apps observe changes (waiting), and nothing more until the grace has passed.
      replicas.remove(replica);
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      vi.advanceTimersByTime(29_999);
      expect(aggregate.availability()).toBe('waiting');
      expect(rechecked).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(aggregate.availability()).toBe('unavailable');
      expect(rechecked).toEqual([['p/a', 'q/b']]);

      // A replica live again: starting at once, and every app re-checked as for any change of what they observe.
      add('r2', { ready: false, takesTraffic: true });
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      expect(aggregate.availability()).toBe('starting');
    });

    it('counts a replica that never comes to take traffic as starting for the starting limit only, then waits the grace', () => {
      vi.useFakeTimers({ now: t0 });
      const { aggregate, rechecked, add } = fleet();
      add('stuck', { ready: false, takesTraffic: false });
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      vi.advanceTimersByTime(300_000);
      expect(rechecked).toEqual([['p/a', 'q/b']]);
      expect(aggregate.availability()).toBe('waiting');
      vi.advanceTimersByTime(30_000);
      expect(rechecked).toHaveLength(2);
      expect(aggregate.availability()).toBe('unavailable');
    });

    it('counts the grace from when the last replica went, not from an earlier time without one', () => {
      vi.useFakeTimers({ now: t0 });
      const { replicas, aggregate, add } = fleet();
      // None at first (the operator started before any replica).
      expect(aggregate.availability()).toBe('waiting');
      const replica = add('r1', { ready: true });
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      vi.advanceTimersByTime(60_000);
      replicas.remove(replica);
      expect(aggregate.onReplica()).toEqual(['p/a', 'q/b']);
      expect(aggregate.availability()).toBe('waiting');
      vi.advanceTimersByTime(30_000);
      expect(aggregate.availability()).toBe('unavailable');
    });

    it('with no grace, is unavailable as soon as no replica is on its way', () => {
      const { aggregate } = fleet({ unavailableGraceMs: 0 });
      expect(aggregate.availability()).toBe('unavailable');
    });
  });
});
