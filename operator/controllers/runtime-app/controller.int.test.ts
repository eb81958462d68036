// The RuntimeApp and RuntimeReplica controllers in this process against the real apiserver, with runtime
// replicas played by the real ReplicaPublisher (what cw-runtime runs) writing RuntimeReplicas and Leases: a
// replica appearing, reporting, failing, stopping or crashing changes the app's status through watches
// alone, and nothing is requeued on a timer. Everything lives in a namespace of this file's own.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { RUNTIME_REPLICA_LABEL, type RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { createInformer, eventWriter, formatMicroTime, LEASES, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { BUILDS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../../../src/platform/resources.ts';
import { RuntimeReplicaView, type ReplicaLease } from '../../../src/platform/runtime-replicas.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { ReplicaPublisher } from '../../../runtime-server/replica-publisher.ts';
import type { ReplicaSnapshot } from '../../../runtime-server/replica-reports.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { runtimeReplicaController } from '../runtime-replica/controller.ts';
import { runtimeAppController } from './controller.ts';

const conn = testConnection();
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const replicaObjects = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
const leases = objectClient<ReplicaLease>(conn, LEASES);
const reportObjects = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
const registry = new Registry();
let namespace: { name: string; remove: () => Promise<void> };
let informers: Informer<KubeObject>[] = [];
let controllers: Controller<KubeObject>[] = [];
let view: RuntimeReplicaView;
/** Short, so the tests see both sides of it. */
const GRACE_MS = 2000;
const publishers: ReplicaPublisher[] = [];

beforeAll(async () => {
  namespace = await testNamespace(conn, 'rtapp');
  const ns = namespace.name;
  const appInformer = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { namespace: ns });
  const builds = createInformer<Build>(conn, BUILDS, { namespace: ns });
  view = new RuntimeReplicaView(
    createInformer<RuntimeReplica>(conn, RUNTIME_REPLICAS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
    createInformer<ReplicaLease>(conn, LEASES, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
    createInformer<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
  );
  informers = [appInformer, builds, view.replicas, view.leases, view.reports] as unknown as Informer<KubeObject>[];
  const events = new EventRecorder({ writer: eventWriter(conn), component: 'runtimeapp-test' });
  controllers = [
    runtimeAppController({ kube: conn, apps: appInformer, builds, replicas: view, events, registry, log: silentLogger, unavailableGraceMs: GRACE_MS }),
    runtimeReplicaController({ kube: conn, replicas: view, registry, log: silentLogger }),
  ] as unknown as Controller<KubeObject>[];
  for (const informer of informers) informer.start();
  await Promise.all(controllers.map((c) => c.start()));
});

afterAll(async () => {
  await Promise.all(publishers.map((p) => p.stop().catch(() => {})));
  await Promise.all(controllers.map((c) => c.stop()));
  for (const informer of informers) informer.stop();
  await namespace?.remove();
});

/** A runtime replica as cw-runtime publishes it; `state` is what it would read from its own memory. */
async function replica(name: string, state: { ready: boolean; takesTraffic?: boolean; apps: RuntimeAppReport[] }): Promise<{ set(next: Partial<ReplicaSnapshot>): void; publisher: ReplicaPublisher }> {
  let snapshot: ReplicaSnapshot = { takesTraffic: state.ready, ...state };
  const publisher = new ReplicaPublisher({ kube: conn, identity: { namespace: namespace.name, name }, leaseDurationSeconds: 40, snapshot: () => snapshot, log: silentLogger, coalesceMs: 10 });
  publishers.push(publisher);
  await publisher.start();
  return {
    publisher,
    set(next) {
      snapshot = { ...snapshot, ...next };
      publisher.changed();
    },
  };
}

const served = (generation: number): RuntimeAppReport => ({
  namespace: '',
  app: 'hello',
  servingBuildId: 'b-1',
  hosts: ['hello.p.apps.localhost'],
  url: 'https://hello.p.apps.localhost',
  servedGeneration: generation,
  observedGeneration: generation,
});

/** The RuntimeApp controller has nothing queued and nothing under way: every re-check asked for is done. */
const queueIdle = () => (controllers[0]?.queue.len() ?? 0) + (controllers[0]?.queue.processing() ?? 0) === 0;
const ready = (app: RuntimeApp | undefined) => findCondition(app?.status?.conditions, 'Ready');
const timedRequeues = async () =>
  ((await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? [])
    .filter((v) => v.labels.controller === 'runtimeapp' && (v.labels.result === 'requeue_after' || v.labels.result === 'requeue'))
    .reduce((sum, v) => sum + v.value, 0);

describe('the RuntimeApp controller on runtime replicas’ reports', () => {
  it('follows replicas coming, reporting, failing, stopping and crashing, by watch alone', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const app = await apps.create({ metadata: { name: 'hello', namespace: ns }, spec: { displayName: 'Hello', activeBuildId: 'b-1' } });
    const generation = app.metadata?.generation ?? 1;
    await objectClient<Build>(conn, BUILDS).create({
      metadata: { name: 'hello-b-1', namespace: ns },
      spec: { app: 'hello', buildId: 'b-1', digest: 'a'.repeat(64), size: 1, objectKey: `apps/${ns}/hello/builds/b-1.tar.zst` },
    });
    const get = () => apps.get(ns, 'hello');
    const report = { ...served(generation), namespace: ns };

    await eventually('RuntimeUnavailable with no replica', get, (a) => ready(a)?.reason === 'RuntimeUnavailable');
    // Without an artifact bucket the controller holds no deletion up: no finalizer.
    expect((await get())?.metadata?.finalizers).toBeUndefined();

    // A replica taking traffic while it goes through its first list: the app is not said unavailable, nor served.
    const a = await replica('replica-a', { ready: false, takesTraffic: true, apps: [] });
    await eventually('RollingOut while the only replica starts', get, (x) => ready(x)?.reason === 'RollingOut' && /replicas are starting/.test(ready(x)?.message ?? ''));
    a.set({ ready: true, apps: [report] });
    await eventually('Serving on one replica', get, (x) => ready(x)?.status === 'True');

    // A starting replica does not count; nor does one taking traffic before its first list has settled; nor one
    // ready whose report on the app has not arrived (it serves the app when asked): the app stays served. Then it
    // reports, and counts (its report of a failure is heard).
    const b = await replica('replica-b', { ready: false, apps: [] });
    expect((await replicaObjects.get(ns, 'replica-b'))?.spec.ready).toBe(false);
    const reconciles = async () =>
      ((await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? []).filter((v) => v.labels.controller === 'runtimeapp').reduce((sum, v) => sum + v.value, 0);
    b.set({ takesTraffic: true });
    // Nothing an app's status says depends on it (a live replica was starting already): the app stays served.
    await eventually(
      'replica-b seen taking traffic, every re-check done',
      async () => ({ serving: view.serving().length, idle: queueIdle() }),
      (s) => s.serving === 2 && s.idle,
    );
    expect(ready(await get())).toMatchObject({ status: 'True', reason: 'Serving' });
    const beforeReady = await reconciles();
    b.set({ ready: true });
    await eventually('the app re-checked once replica-b is ready', reconciles, (count) => count > beforeReady);
    expect(ready(await get())).toMatchObject({ status: 'True', reason: 'Serving' });

    // The worst replica decides.
    b.set({ apps: [{ ...report, servingBuildId: 'b-0', servedGeneration: generation - 1, failure: { reason: 'BuildFailed', buildId: 'b-1', message: 'Uncaught SyntaxError\n  at worker.js:2' } }] });
    const failed = await eventually('BuildFailed from replica-b', get, (x) => ready(x)?.reason === 'BuildFailed');
    // A build that cannot load waits for a person: Stalled, which kstatus (Flux's wait) reads as failed at once.
    expect(failed?.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'BuildFailed' });

    // A graceful stop deletes its objects: it stops counting at once, and its failure with it.
    await b.publisher.stop();
    const again = await eventually('Serving again once replica-b stopped', get, (x) => ready(x)?.status === 'True');
    expect(again?.status?.conditions?.find((c) => c.type === 'Stalled')).toBeUndefined();

    // A crashed replica's objects (a lease of 2 s never renewed): removed at the lease's expiry.
    const renewTime = formatMicroTime(Date.now());
    const labels = { [RUNTIME_REPLICA_LABEL]: 'true' };
    const reportName = replicaReportName('replica-c', ns);
    await leases.create({ metadata: { name: 'replica-c', namespace: ns, labels }, spec: { holderIdentity: 'replica-c', leaseDurationSeconds: 2, renewTime } });
    await reportObjects.create({
      metadata: { name: reportName, namespace: ns, labels: { [RUNTIME_REPLICA_LABEL]: 'replica-c' } },
      // Still serving an older spec: while it counts, the app is rolling out.
      spec: { replica: 'replica-c', project: ns, apps: [{ ...report, hosts: [...report.hosts], servingBuildId: 'b-0', servedGeneration: generation - 1 }] },
    });
    await replicaObjects.create({ metadata: { name: 'replica-c', namespace: ns, labels }, spec: { ready: true } });
    await eventually('counted while its lease lasts', get, (x) => ready(x)?.reason === 'RollingOut' && /1 of 2 runtime replicas serve it/.test(ready(x)?.message ?? ''));
    await eventually(
      'its objects, reports included, removed after the lease expired',
      async () => [await replicaObjects.get(ns, 'replica-c'), await leases.get(ns, 'replica-c'), await reportObjects.get(ns, reportName)],
      (objects) => objects.every((o) => !o),
      10_000,
    );
    await eventually('counted no more', get, (x) => ready(x)?.status === 'True');

    // The app's status was never re-checked on a timer.
    expect(await timedRequeues()).toBe(0);
  });

  it('writes nothing when the lone replica restarts within the grace, and RuntimeUnavailable once it has passed', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const get = () => apps.get(ns, 'hello');
    const report = { ...served((await get())?.metadata?.generation ?? 1), namespace: ns };
    const [old] = publishers.filter((p) => p.identity.name === 'replica-a');
    const before = (await get())?.metadata?.resourceVersion;
    expect(ready(await get())).toMatchObject({ status: 'True', reason: 'Serving' });

    // The lone replica stops; its successor publishes its RuntimeReplica as soon as it starts (before it has listed
    // anything), then takes traffic, then counts with its report.
    await old!.stop();
    await eventually(
      'the operator without a replica, every re-check done',
      async () => ({ live: view.live().length, idle: queueIdle() }),
      (s) => s.live === 0 && s.idle,
    );
    const next = await replica('replica-d', { ready: false, takesTraffic: false, apps: [] });
    next.set({ takesTraffic: true });
    next.set({ ready: true, apps: [report] });
    const reportKey = `${ns}/${replicaReportName('replica-d', ns)}`;
    await eventually(
      'replica-d counted, its report read and every re-check done',
      async () => ({ ready: view.ready().map((r) => r.metadata?.name), report: view.reports?.get(reportKey), idle: queueIdle() }),
      (s) => s.ready.join() === 'replica-d' && s.report?.spec.apps.length === 1 && s.idle,
    );
    // Not "unavailable", then "starting", then served again: the same object throughout.
    expect((await get())?.metadata?.resourceVersion).toBe(before);

    // The last replica goes and none follows: the status keeps what it said for the grace, then says so.
    // Timed from before the stop: the operator may see the replica gone (and start the grace) before stop() returns,
    // by as long as its last writes take under load (a CI run measured 12 ms under the grace from after it).
    const stoppedAt = performance.now();
    await next.publisher.stop();
    const unavailable = await eventually('RuntimeUnavailable once the grace has passed', get, (x) => ready(x)?.reason === 'RuntimeUnavailable');
    expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(unavailable?.status?.servingBuildId).toBe('b-1');
  });
});
