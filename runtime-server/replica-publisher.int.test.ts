// The replica's report publisher against the real apiserver: one RuntimeReplicaReport per project, so a replica
// reporting more apps than one object could hold (4100 over 41 projects; one RuntimeReplica held 4000) has every
// app's report readable, as the operator's RuntimeApp controller reads them; a change rewrites only its
// project's object, a project with no report left loses its object, and a graceful stop deletes them all.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RUNTIME_REPLICA_LABEL, type RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { createInformer, LEASES, objectClient, type Informer, type KubeObject } from '../src/kube/index.ts';
import { testConnection, testNamespace } from '../src/kube/testing/test-kube.ts';
import { RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import { RuntimeReplicaView, type ReplicaLease } from '../src/platform/runtime-replicas.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { silentLogger } from '../src/logging/log.ts';
import { eventually } from '../e2e/harness/runtime-stack.ts';
import { OLDER_REPORTS } from '../e2e/harness/older-crds.ts';
import { ReplicaReports } from '../operator/controllers/runtime-app/replica-reports.ts';
import { ReplicaPublisher } from './replica-publisher.ts';
import type { ReplicaSnapshot } from './replica-reports.ts';

const conn = testConnection();
const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
let namespace: { name: string; remove: () => Promise<void> };
let informers: Informer<KubeObject>[] = [];

beforeAll(async () => {
  namespace = await testNamespace(conn, 'replpub');
});

afterAll(async () => {
  for (const informer of informers) informer.stop();
  await namespace?.remove();
});

const project = (i: number) => `proj-${String(i).padStart(2, '0')}`;
const report = (projectName: string, app: string, generation = 1): RuntimeAppReport => ({
  namespace: projectName,
  app,
  servingBuildId: 'b-0123456789abcdef',
  hosts: [`${app}.${projectName}.apps.localhost`],
  url: `https://${app}.${projectName}.apps.localhost`,
  servedGeneration: generation,
  observedGeneration: generation,
});
/** 100 apps in each of `projects` projects, in key order (as the runtime's snapshot is). */
const appsOf = (projects: number) => Array.from({ length: projects * 100 }, (_, i) => report(project(Math.floor(i / 100)), `app-${String(i % 100).padStart(3, '0')}`));

describe('ReplicaPublisher', () => {
  it('publishes 4100 apps over 41 projects so that every app’s report is readable, rebuilds and rewrites only a changed project, and deletes what is gone', { timeout: 120_000 }, async () => {
    const ns = namespace.name;
    let snapshot: ReplicaSnapshot = { ready: true, takesTraffic: true, apps: appsOf(41) };
    // As the runtime answers: asked for some projects, the reports of those only.
    const asked: (string[] | 'all')[] = [];
    const snapshotOf = (projects?: ReadonlySet<string>): ReplicaSnapshot => {
      // (An empty set asks whether the reports count, and builds none.)
      if (projects?.size !== 0) asked.push(projects ? [...projects].sort() : 'all');
      return projects ? { ...snapshot, apps: snapshot.apps.filter((a) => projects.has(a.namespace)) } : snapshot;
    };
    const publisher = new ReplicaPublisher({ kube: conn, identity: { namespace: ns, name: 'r1' }, leaseDurationSeconds: 40, snapshot: snapshotOf, log: silentLogger, coalesceMs: 10 });
    await publisher.start();

    // Read as the operator reads: from watches, an app's report on a replica at its project's object.
    const reportInformer = createInformer<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL });
    const view = new RuntimeReplicaView(
      createInformer<RuntimeReplica>(conn, RUNTIME_REPLICAS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
      createInformer<ReplicaLease>(conn, LEASES, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
      reportInformer,
    );
    informers = [view.replicas, view.leases, reportInformer] as unknown as Informer<KubeObject>[];
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    const aggregate = new ReplicaReports(view, reportInformer, () => []);
    const unreadable = snapshot.apps.filter((a) => aggregate.app(a.namespace, a.app)[0]?.servedGeneration !== 1);
    expect(unreadable.length).toBe(0);

    const listed = (await reports.list(ns, { labelSelector: `${RUNTIME_REPLICA_LABEL}=r1` })).items;
    expect(listed).toHaveLength(41);
    const versions = new Map(listed.map((r) => [r.metadata?.name ?? '', r.metadata?.resourceVersion]));
    const seven = await reports.get(ns, replicaReportName('r1', project(7)));
    expect(seven?.metadata?.labels).toEqual({ [RUNTIME_REPLICA_LABEL]: 'r1', 'cloudwright.dev/project': project(7) });
    expect(seven?.spec).toMatchObject({ replica: 'r1', project: project(7) });
    expect(seven?.spec.apps).toHaveLength(100);

    // One app of one project changes, and the last project has no app left.
    snapshot = { ready: true, takesTraffic: true, apps: appsOf(40).map((a) => (a.namespace === project(7) && a.app === 'app-042' ? report(project(7), 'app-042', 2) : a)) };
    publisher.changed(project(7));
    publisher.changed(project(40));
    await eventually(
      'the last project’s report deleted',
      () => reports.get(ns, replicaReportName('r1', project(40))),
      (r) => r === undefined,
      30_000,
    );
    const after = (await reports.list(ns, { labelSelector: `${RUNTIME_REPLICA_LABEL}=r1` })).items;
    const rewritten = after.filter((r) => versions.get(r.metadata?.name ?? '') !== r.metadata?.resourceVersion).map((r) => r.metadata?.name);
    expect(rewritten).toEqual([replicaReportName('r1', project(7))]);
    // Only the two projects named were rebuilt, not the 4,000 reports of the others.
    expect(asked).toEqual(['all', [project(40), project(7)].sort()]);
    await eventually(
      'the operator’s view shows the change',
      async () => aggregate.app(project(7), 'app-042')[0]?.servedGeneration,
      (g) => g === 2,
      30_000,
    );

    // A graceful stop deletes the RuntimeReplica and every report.
    await publisher.stop();
    expect((await reports.list(ns)).items).toEqual([]);
    expect(await objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS).get(ns, 'r1')).toBeUndefined();
  });

  it('lists every app again once the apiserver drops its mark (a RuntimeReplicaReport CRD older than the runtime)', { timeout: 60_000 }, async () => {
    // Installed with ours before any test (e2e/harness/older-crds.ts).
    const old = OLDER_REPORTS;
    const ns = namespace.name;
    const marked = (projects?: ReadonlySet<string>): ReplicaSnapshot => ({
      ready: true,
      takesTraffic: true,
      apps: projects ? [] : [report(project(0), 'app-000')],
      marks: { acted: new Map([[project(0), '42']]), defaultHost: { domain: 'apps.localhost', scheme: 'https' } },
    });
    const publisher = new ReplicaPublisher({
      kube: conn,
      identity: { namespace: ns, name: 'r3' },
      leaseDurationSeconds: 40,
      snapshot: marked,
      log: silentLogger,
      coalesceMs: 10,
      reportsResource: old,
    });
    try {
      expect(publisher.marksKept).toBe(true);
      // Server-side apply refuses the fields the CRD does not declare: that first write fails, and the start is
      // retried as cw-runtime retries it, this time without the mark.
      await expect(publisher.start()).rejects.toThrow(/field not declared in schema/);
      expect(publisher.marksKept).toBe(false);
      await publisher.start();
      // The report follows the start (its writes are coalesced): waited for, not read at once (failed CI once).
      const written = await vi.waitFor(
        async () => {
          const report = await objectClient<RuntimeReplicaReport>(conn, old).get(ns, replicaReportName('r3', project(0)));
          expect(report).toBeDefined();
          return report;
        },
        { timeout: 10_000 },
      );
      expect(written?.spec.acted).toBeUndefined(); // pruned: the reason the runtime stops leaving apps out
      expect(written?.spec.apps.map((a) => a.app)).toEqual(['app-000']);
    } finally {
      await publisher.stop();
    }
  });

  it('writes no report before they count: its RuntimeReplica alone, then every report at once, before it says ready', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    let snapshot: ReplicaSnapshot = { ready: false, takesTraffic: true, apps: appsOf(3) };
    const snapshotOf = (projects?: ReadonlySet<string>): ReplicaSnapshot => (projects ? { ...snapshot, apps: snapshot.apps.filter((a) => projects.has(a.namespace)) } : snapshot);
    const publisher = new ReplicaPublisher({ kube: conn, identity: { namespace: ns, name: 'r2' }, leaseDurationSeconds: 40, snapshot: snapshotOf, log: silentLogger, coalesceMs: 10 });
    const replicas = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
    const ofR2 = async () => (await reports.list(ns, { labelSelector: `${RUNTIME_REPLICA_LABEL}=r2` })).items;
    try {
      await publisher.start();
      // Its first pass: apps settle one project after another, and none of it is written.
      for (const i of [0, 1, 2]) publisher.changed(project(i));
      await eventually(
        'the RuntimeReplica written',
        () => replicas.get(ns, 'r2'),
        (r) => r?.spec.takesTraffic === true,
      );
      expect(await ofR2()).toEqual([]);
      // Its reports count: all three projects are written, and by then the RuntimeReplica says ready.
      snapshot = { ...snapshot, ready: true };
      publisher.replicaChanged();
      const replica = await eventually(
        'ready',
        () => replicas.get(ns, 'r2'),
        (r) => r?.spec.ready === true,
      );
      expect(replica?.spec.ready).toBe(true);
      expect((await ofR2()).map((r) => r.spec.apps.length)).toEqual([100, 100, 100]);
    } finally {
      await publisher.stop();
    }
  });
});
