// The RuntimeApp controller's finalizer and build retention against the real apiserver and the run's MinIO
// bucket: an app deleted directly (as kubectl or a GitOps prune deletes it, with no API in between) goes only
// once its stored build artifacts are deleted, and a controller stopped part way through is finished by the
// next one, and not before every counted runtime replica has let it go (played by the real ReplicaPublisher);
// Builds applied past what an app keeps are pruned, Build and artifact, the active one never.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { createInformer, EVENTS, eventWriter, LEASES, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { RUNTIME_REPLICA_LABEL, type RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import type { RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import { RuntimeReplicaView, type ReplicaLease } from '../../../src/platform/runtime-replicas.ts';
import { ReplicaPublisher } from '../../../runtime-server/replica-publisher.ts';
import type { ReplicaSnapshot } from '../../../runtime-server/replica-reports.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { listAll } from '../../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { ForwardingObjectStore } from '../../../src/object-store/testing/forwarding-object-store.ts';
import { appArtifactPrefix, artifactKey, buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { BUILDS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../../../src/platform/resources.ts';
import { UPLOADED_AT_ANNOTATION } from '../../../src/platform/app-view.ts';
import { STORED_BYTES_ANNOTATION } from '../../../src/platform/stored-builds-quota.ts';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { runtimeAppController } from './controller.ts';

const conn = testConnection();
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let namespace: { name: string; remove: () => Promise<void> };
const buildClient = objectClient<Build>(conn, BUILDS);
let informer: Informer<RuntimeApp>;
let buildInformer: Informer<Build>;
const running: Controller<RuntimeApp>[] = [];

beforeAll(async () => {
  namespace = await testNamespace(conn, 'rtapp-fin');
  informer = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { namespace: namespace.name });
  buildInformer = createInformer<Build>(conn, BUILDS, { namespace: namespace.name });
  informer.start();
  buildInformer.start();
  await Promise.all([informer.waitForSync(AbortSignal.timeout(30_000)), buildInformer.waitForSync(AbortSignal.timeout(30_000))]);
});

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  informer?.stop();
  buildInformer?.stop();
  // Whatever a failed test left holding its finalizer.
  for (const app of (await apps.list(namespace.name)).items) await apps.patch(namespace.name, app.metadata?.name ?? '', { metadata: { finalizers: null } });
  await namespace?.remove();
});

/** A RuntimeApp controller (no runtime replicas: its status says RuntimeNotConfigured) on this file's namespace. */
async function startController(
  artifacts: ObjectStore,
  maxBuildsPerApp?: number,
  orphans: { orphanScanIntervalMs?: number; orphanGraceMs?: number } = {},
  projectStoredBuildsQuota?: number,
): Promise<Controller<RuntimeApp>> {
  const events = new EventRecorder({ writer: eventWriter(conn), component: 'runtimeapp-finalizer-test' });
  const retention = maxBuildsPerApp ? { builds: buildInformer, maxBuildsPerApp, ...(projectStoredBuildsQuota !== undefined ? { projectStoredBuildsQuota } : {}) } : {};
  const controller = runtimeAppController({ kube: conn, apps: informer, artifacts, ...retention, ...orphans, events, registry: new Registry(), log: silentLogger });
  running.push(controller);
  await controller.start();
  return controller;
}

async function stored(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of listAll(bucket, prefix)) keys.push(item.key);
  return keys;
}

/** An app with `count` stored builds, once the controller has put its finalizer on it. */
async function appWithArtifacts(name: string, count: number): Promise<string[]> {
  const ns = namespace.name;
  await apps.create({ metadata: { name, namespace: ns }, spec: { displayName: name } });
  const keys = Array.from({ length: count }, (_, i) => artifactKey(ns, name, `b-${String(i).padStart(16, '0')}`));
  for (const key of keys) await bucket.put(key, new TextEncoder().encode(key));
  await eventually(
    'the finalizer on the app',
    () => apps.get(ns, name),
    (a) => a?.metadata?.finalizers?.includes(RUNTIME_APP_FINALIZER) === true,
  );
  return keys;
}

/** Deletes go through until `allowed` are spent; then each fails, as a store going away would make them. */
class DeletesThenFails extends ForwardingObjectStore {
  #allowed: number;
  deleted = 0;
  constructor(inner: ObjectStore, allowed: number) {
    super(inner);
    this.#allowed = allowed;
  }
  override async delete(key: string): Promise<void> {
    if (this.#allowed <= 0) throw new Error('object store unreachable (injected)');
    this.#allowed--;
    await super.delete(key);
    this.deleted++;
  }
}

/** An app's artifacts that cannot be deleted, nor (while `unreadable`) read: a bucket failing under one app's prefix. */
class PrefixFails extends ForwardingObjectStore {
  unreadable = true;
  readonly #prefix: string;
  constructor(inner: ObjectStore, prefix: string) {
    super(inner);
    this.#prefix = prefix;
  }
  override head(key: string) {
    if (this.unreadable && key.startsWith(this.#prefix)) return Promise.reject(new Error('object store unreachable (injected)'));
    return super.head(key);
  }
  override delete(key: string): Promise<void> {
    if (key.startsWith(this.#prefix)) return Promise.reject(new Error('object store unreachable (injected)'));
    return super.delete(key);
  }
}

describe('the RuntimeApp controller’s artifact finalizer', () => {
  it('deletes the artifacts of an app deleted directly, then lets it go; another app’s stay', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const controller = await startController(bucket);
    try {
      const keys = await appWithArtifacts('doomed', 3);
      // Another app whose id starts with this one's: a prefix of its own, untouched.
      const neighbour = await appWithArtifacts('doomed-2', 1);
      expect(await stored(appArtifactPrefix(ns, 'doomed'))).toEqual(keys);

      await apps.delete(ns, 'doomed');
      await eventually(
        'the app gone',
        () => apps.get(ns, 'doomed'),
        (a) => a === undefined,
      );
      expect(await stored(appArtifactPrefix(ns, 'doomed'))).toEqual([]);
      expect(await stored(appArtifactPrefix(ns, 'doomed-2'))).toEqual(neighbour);

      await apps.delete(ns, 'doomed-2');
      await eventually(
        'the neighbour gone',
        () => apps.get(ns, 'doomed-2'),
        (a) => a === undefined,
      );
      expect(await stored(appArtifactPrefix(ns, 'doomed-2'))).toEqual([]);
    } finally {
      await controller.stop();
    }
  });

  it('converges after a controller stopped part way through the artifacts: the next one finishes and the app goes', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const failing = new DeletesThenFails(bucket, 2);
    const first = await startController(failing);
    await appWithArtifacts('halfway', 5);
    await apps.delete(ns, 'halfway');
    await eventually(
      'two artifacts deleted, then the store failing',
      async () => failing.deleted,
      (n) => n === 2,
    );
    await first.stop();
    // Held by the finalizer, with what is left of its artifacts.
    const held = await apps.get(ns, 'halfway');
    expect(held?.metadata?.deletionTimestamp).toBeDefined();
    expect(held?.metadata?.finalizers).toContain(RUNTIME_APP_FINALIZER);
    expect(await stored(appArtifactPrefix(ns, 'halfway'))).toHaveLength(3);

    const second = await startController(bucket);
    try {
      await eventually(
        'the app gone',
        () => apps.get(ns, 'halfway'),
        (a) => a === undefined,
      );
      expect(await stored(appArtifactPrefix(ns, 'halfway'))).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});

describe('the RuntimeApp controller’s finalizer and the runtime replicas', () => {
  const events = objectClient<KubeObject & { involvedObject: { name?: string }; type?: string; reason?: string; message?: string }>(conn, EVENTS);

  /** A controller reading the replicas' reports, and one ready replica whose report for this namespace has an `acted` mark. */
  async function withReplica(letGoLimitMs?: number) {
    const ns = namespace.name;
    const view = new RuntimeReplicaView(
      createInformer<RuntimeReplica>(conn, RUNTIME_REPLICAS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
      createInformer<ReplicaLease>(conn, LEASES, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
      createInformer<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
    );
    const sources = [view.replicas, view.leases, view.reports] as unknown as Informer<KubeObject>[];
    for (const source of sources) source.start();
    let snapshot: ReplicaSnapshot = { ready: true, takesTraffic: true, apps: [], marks: { acted: new Map([[ns, '1']]), defaultHost: { domain: 'apps.test', scheme: 'https' } } };
    const publisher = new ReplicaPublisher({ kube: conn, identity: { namespace: ns, name: 'r1' }, leaseDurationSeconds: 40, snapshot: () => snapshot, log: silentLogger, coalesceMs: 10 });
    await publisher.start();
    const registry = new Registry();
    const recorder = new EventRecorder({ writer: eventWriter(conn), component: 'runtimeapp-finalizer-test' });
    const controller = runtimeAppController({
      kube: conn,
      apps: informer,
      artifacts: bucket,
      replicas: view,
      events: recorder,
      registry,
      log: silentLogger,
      ...(letGoLimitMs ? { letGoLimitMs } : {}),
    });
    await controller.start();
    const waits = async () => (await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.find((v) => v.labels.result === 'requeue_after')?.value ?? 0;
    return {
      /** The replica has acted on every change of the namespace's apps up to `resourceVersion`. */
      actedUpTo(resourceVersion: string) {
        snapshot = { ...snapshot, marks: { ...snapshot.marks!, acted: new Map([[ns, resourceVersion]]) } };
        publisher.changed();
      },
      waits,
      async stop() {
        await controller.stop();
        await publisher.stop();
        for (const source of sources) source.stop();
      },
    };
  }

  it('deletes nothing of a deleted app until every counted replica has let it go, then its artifacts and the app go', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const replica = await withReplica();
    try {
      const keys = await appWithArtifacts('served', 2);
      await apps.delete(ns, 'served');
      // The controller has seen the deletion and chosen to wait for the replica, whose mark is before it.
      await eventually('the deletion waiting for the replica', replica.waits, (n) => n >= 1);
      const held = await apps.get(ns, 'served');
      expect(held?.metadata?.finalizers).toContain(RUNTIME_APP_FINALIZER);
      expect(await stored(appArtifactPrefix(ns, 'served'))).toEqual(keys);

      replica.actedUpTo(held?.metadata?.resourceVersion ?? '');
      await eventually(
        'the app gone once the replica has let it go',
        () => apps.get(ns, 'served'),
        (a) => a === undefined,
      );
      expect(await stored(appArtifactPrefix(ns, 'served'))).toEqual([]);
    } finally {
      await replica.stop();
    }
  });

  it('lets a deleted app go all the same once a replica has held it past the limit, with a Warning Event naming the replica', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const replica = await withReplica(1_500);
    try {
      await appWithArtifacts('stuck', 1);
      await apps.delete(ns, 'stuck');
      await eventually(
        'the app gone past the limit',
        () => apps.get(ns, 'stuck'),
        (a) => a === undefined,
      );
      expect(await stored(appArtifactPrefix(ns, 'stuck'))).toEqual([]);
      const warning = await eventually(
        'the Warning Event',
        async () => (await events.list(ns)).items.find((e) => e.involvedObject.name === 'stuck' && e.reason === 'ReplicasNotLetGo'),
        (e) => e !== undefined,
      );
      expect(warning).toMatchObject({ type: 'Warning', message: expect.stringContaining('r1') });
    } finally {
      await replica.stop();
    }
  });
});

describe('the RuntimeApp controller’s build retention', () => {
  /**
   * A Build as `kubectl apply` writes one (uploaded at `minute` past noon), with its artifact stored (its id's
   * bytes unless `artifact` says otherwise); with `measured`, as the API writes one (the measured annotation a
   * tenant cannot write).
   */
  async function applyBuild(
    app: string,
    buildId: string,
    minute: number,
    objectKey = artifactKey(namespace.name, app, buildId),
    options: { artifact?: string; measured?: boolean } = {},
  ): Promise<void> {
    const ns = namespace.name;
    const artifact = options.artifact ?? buildId;
    await bucket.put(artifactKey(ns, app, buildId), new TextEncoder().encode(artifact));
    const annotations = { [UPLOADED_AT_ANNOTATION]: `2026-01-01T12:${String(minute).padStart(2, '0')}:00Z`, ...(options.measured ? { [STORED_BYTES_ANNOTATION]: String(artifact.length) } : {}) };
    await buildClient.create({
      metadata: { name: buildResourceName(app, buildId), namespace: ns, annotations },
      spec: { app, buildId, digest: buildId.slice(2).padEnd(64, '0'), size: artifact.length, objectKey },
    });
  }
  /** The project's quota counts every Build of the namespace: a test of it starts with none left by the others. */
  async function emptyProject(): Promise<void> {
    const ns = namespace.name;
    for (const build of (await buildClient.list(ns)).items) await buildClient.delete(ns, build.metadata?.name ?? '');
    await eventually(
      'no Build left in the project',
      async () => buildInformer.list(ns).length,
      (n) => n === 0,
    );
  }
  const buildIds = (n: number) => Array.from({ length: n }, (_, i) => `b-${String(i).padStart(16, '0')}`);
  const recorded = async (app: string) =>
    (await buildClient.list(namespace.name)).items
      .filter((b) => b.spec.app === app)
      .map((b) => b.spec.buildId)
      .sort();

  const onlyLeft = (app: string, ids: string[], what: string) =>
    eventually(
      what,
      () => recorded(app),
      (left) => JSON.stringify(left) === JSON.stringify(ids),
    );

  it('prunes applied Builds past the newest it keeps, Build and artifact, but never the active one', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const controller = await startController(bucket, 2);
    try {
      const ids = buildIds(5);
      // Rolled back to the oldest build: active, so kept beyond the newest two.
      await apps.create({ metadata: { name: 'kept', namespace: ns }, spec: { displayName: 'kept', activeBuildId: ids[0] } });
      for (const [minute, id] of ids.entries()) await applyBuild('kept', id, minute);
      const survivors = [ids[0], ids[3], ids[4]].map(String).sort();
      await onlyLeft('kept', survivors, 'only the newest two and the active build left');
      await eventually(
        'their artifacts alone stored',
        () => stored(appArtifactPrefix(ns, 'kept')),
        (keys) => JSON.stringify(keys) === JSON.stringify(survivors.map((id) => artifactKey(ns, 'kept', id)).sort()),
      );
    } finally {
      await controller.stop();
    }
  });

  it('measures each app’s own Builds in its reconcile, and a Build of no app in another app’s', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const controller = await startController(bucket, 5);
    try {
      const [id] = buildIds(1);
      await apps.create({ metadata: { name: 'measured', namespace: ns }, spec: { displayName: 'measured', activeBuildId: id } });
      await applyBuild('measured', id!, 0);
      // Applied for an app that does not exist (a GitOps sync half done): no app of its own wakes for it.
      await applyBuild('absent', id!, 1);
      const measuredOf = async (app: string) => (await buildClient.get(ns, buildResourceName(app, id!)))?.metadata?.annotations?.[STORED_BYTES_ANNOTATION];
      await eventually(
        'the app’s own Build measured',
        () => measuredOf('measured'),
        (bytes) => bytes === String(id!.length),
      );
      await eventually(
        'the Build of no app measured too',
        () => measuredOf('absent'),
        (bytes) => bytes === String(id!.length),
      );
    } finally {
      await controller.stop();
    }
  });

  it('judges the project quota though a Build names an app another finalizer holds in deletion (nobody else measured it)', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const ids = buildIds(4);
    // Each artifact is its build id (18 bytes): the project may keep 40, so one of the live app's three must go (the
    // held app's Build counts nothing: its app's teardown is done, so nothing of it is stored).
    await emptyProject();
    const controller = await startController(bucket, 10, {}, 40);
    try {
      await apps.create({ metadata: { name: 'held', namespace: ns, finalizers: ['example.com/hold'] }, spec: { displayName: 'held' } });
      await apps.delete(ns, 'held');
      await eventually(
        'the app held by the other finalizer alone',
        () => apps.get(ns, 'held'),
        (a) => JSON.stringify(a?.metadata?.finalizers) === JSON.stringify(['example.com/hold']),
      );
      // Applied by hand for the app being deleted: its own passes run no retention.
      await applyBuild('held', ids[0]!, 0);
      await apps.create({ metadata: { name: 'live', namespace: ns }, spec: { displayName: 'live', activeBuildId: ids[3] } });
      for (const minute of [1, 2, 3]) await applyBuild('live', ids[minute]!, minute);
      await onlyLeft('live', [ids[2]!, ids[3]!], 'the live app’s oldest build pruned by the project quota, its active build kept');
    } finally {
      await controller.stop();
    }
  });

  it('counts nothing for the Builds of an app whose teardown deleted their artifacts, though another finalizer holds it (and them) for good', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const ids = buildIds(5);
    // Each artifact is its build id (18 bytes) and the project may keep 40: the live app's three take 54, and
    // counted with the torn-down app's 18 they would take 72, two of the three to go rather than one.
    await emptyProject();
    const controller = await startController(bucket, 10, {}, 40);
    try {
      await apps.create({ metadata: { name: 'gone', namespace: ns, finalizers: ['example.com/hold'] }, spec: { displayName: 'gone' } });
      await applyBuild('gone', ids[0]!, 0, undefined, { measured: true });
      await eventually(
        'the finalizer on the app',
        () => apps.get(ns, 'gone'),
        (a) => a?.metadata?.finalizers?.includes(RUNTIME_APP_FINALIZER) === true,
      );
      await apps.delete(ns, 'gone');
      await eventually(
        'the torn-down app held by the other finalizer alone, its artifact deleted',
        async () => ({ app: await apps.get(ns, 'gone'), stored: await stored(appArtifactPrefix(ns, 'gone')) }),
        ({ app, stored }) => JSON.stringify(app?.metadata?.finalizers) === JSON.stringify(['example.com/hold']) && stored.length === 0,
      );
      await apps.create({ metadata: { name: 'survivor', namespace: ns }, spec: { displayName: 'survivor', activeBuildId: ids[3] } });
      for (const minute of [1, 2, 3]) await applyBuild('survivor', ids[minute]!, minute);
      await onlyLeft('survivor', [ids[2]!, ids[3]!], 'the live app’s oldest build pruned by the project quota');
      // A Build of no bytes: once the app's pass has measured it, the pass that pruned is over, whatever it pruned.
      await applyBuild('survivor', ids[4]!, 4, undefined, { artifact: '' });
      await eventually(
        'the empty build measured by the app’s pass',
        async () => (await buildClient.get(ns, buildResourceName('survivor', ids[4]!)))?.metadata?.annotations?.[STORED_BYTES_ANNOTATION],
        (bytes) => bytes === '0',
      );
      expect(await recorded('survivor')).toEqual([ids[2], ids[3], ids[4]]);
    } finally {
      await controller.stop();
      await apps.patch(ns, 'gone', { metadata: { finalizers: null } }).catch(() => {});
    }
  });

  it('wakes another app for the Builds not measured yet of an app entering deletion (no Build event says they are its to measure now)', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const ids = buildIds(4);
    await emptyProject();
    // The stuck app's Build cannot be measured until it is being deleted, and its teardown never finishes.
    const store = new PrefixFails(bucket, appArtifactPrefix(ns, 'stuck'));
    const controller = await startController(store, 10, {}, 40);
    try {
      await apps.create({ metadata: { name: 'stuck', namespace: ns }, spec: { displayName: 'stuck' } });
      await eventually(
        'the finalizer on the app',
        () => apps.get(ns, 'stuck'),
        (a) => a?.metadata?.finalizers?.includes(RUNTIME_APP_FINALIZER) === true,
      );
      await applyBuild('stuck', ids[0]!, 0);
      // Measured already (as uploads are), so nothing but the stuck app's Build keeps the quota from being judged, and
      // the live app's passes end once its status is written: nothing of its own wakes it again.
      await apps.create({ metadata: { name: 'waking', namespace: ns }, spec: { displayName: 'waking', activeBuildId: ids[3] } });
      for (const minute of [1, 2, 3]) await applyBuild('waking', ids[minute]!, minute, undefined, { measured: true });
      await eventually(
        'the live app’s status written and the controller idle',
        async () => ({ app: await apps.get(ns, 'waking'), idle: controller.queue.len() === 0 && controller.queue.processing() === 0 }),
        ({ app, idle }) => app?.status?.observedGeneration === app?.metadata?.generation && idle,
      );
      await apps.delete(ns, 'stuck');
      await eventually(
        'the deletion seen',
        async () => informer.get(`${ns}/stuck`)?.metadata?.deletionTimestamp,
        (at) => at !== undefined,
      );
      store.unreadable = false;
      // 18 bytes each: with the stuck app's, 72 against 40, so two of the live app's three go.
      await onlyLeft('waking', [ids[3]!], 'the live app’s oldest builds pruned once the stuck app’s Build was measured');
    } finally {
      await controller.stop();
      await apps.patch(ns, 'stuck', { metadata: { finalizers: null } }).catch(() => {});
    }
  });

  it("deletes a pruned build's artifact where builds are stored, never where its Build's objectKey points (a hand-written Build may name another tenant's object)", { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const victim = `tls/certificates/another-project/default-hosts/${ns}`;
    await bucket.put(victim, new TextEncoder().encode('sealed'));
    const controller = await startController(bucket, 1);
    try {
      const ids = buildIds(3);
      await apps.create({ metadata: { name: 'pointer', namespace: ns }, spec: { displayName: 'pointer', activeBuildId: ids[2] } });
      await applyBuild('pointer', ids[0]!, 0, victim);
      await applyBuild('pointer', ids[1]!, 1);
      await applyBuild('pointer', ids[2]!, 2);
      await onlyLeft('pointer', [ids[2]!], 'only the newest build left');
      await eventually(
        'its own artifacts deleted',
        () => stored(appArtifactPrefix(ns, 'pointer')),
        (keys) => JSON.stringify(keys) === JSON.stringify([artifactKey(ns, 'pointer', ids[2]!)]),
      );
      expect(await bucket.head(victim)).toBeTruthy();
    } finally {
      await controller.stop();
      await bucket.delete(victim);
    }
  });

  it('deletes the artifact of a Build deleted while no operator ran, and one no Build ever named, once the listing is due; the active build stays', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const ids = buildIds(3).map((id) => id.replace('b-', 'o-'));
    const first = await startController(bucket, 10);
    await apps.create({ metadata: { name: 'offline', namespace: ns }, spec: { displayName: 'offline', activeBuildId: ids[0] } });
    for (const [minute, id] of ids.slice(0, 2).entries()) await applyBuild('offline', id, minute);
    await first.stop();
    // No operator runs: the Builds go (the active one's too) and an artifact is stored that no Build names.
    for (const id of ids.slice(0, 2)) await buildClient.delete(ns, buildResourceName('offline', id));
    await bucket.put(artifactKey(ns, 'offline', ids[2]!), new TextEncoder().encode('never recorded'));
    const second = await startController(bucket, 10, { orphanScanIntervalMs: 200, orphanGraceMs: 0 });
    try {
      // The app's passes come with its changes (and the resync); each touch here is one.
      let touch = 0;
      await eventually(
        'only the active build left stored',
        async () => {
          await apps.patch(ns, 'offline', { metadata: { annotations: { touched: String(++touch) } } }, 'merge');
          return stored(appArtifactPrefix(ns, 'offline'));
        },
        (keys) => JSON.stringify(keys) === JSON.stringify([artifactKey(ns, 'offline', ids[0]!)]),
      );
    } finally {
      await second.stop();
    }
  });

  it('keeps the stable build of a rollout, served while the spec names the new one', { timeout: 60_000 }, async () => {
    const ns = namespace.name;
    const controller = await startController(bucket, 1);
    try {
      const ids = buildIds(5).map((id) => id.replace('b-', 'r-'));
      await apps.create({ metadata: { name: 'rolling', namespace: ns }, spec: { displayName: 'rolling', activeBuildId: ids[0], rollout: { steps: [{ weight: 10, pause: {} }] } } });
      await eventually(
        'the first build recorded as stable',
        () => apps.get(ns, 'rolling'),
        (a) => a?.status?.rollout?.stable.buildId === ids[0],
      );
      await apps.patch(ns, 'rolling', { spec: { activeBuildId: ids[1] } }, 'merge');
      await eventually(
        'a rollout of the second',
        () => apps.get(ns, 'rolling'),
        (a) => a?.status?.rollout?.phase === 'Progressing',
      );
      for (const [minute, id] of ids.entries()) await applyBuild('rolling', id, minute);
      const survivors = [ids[0], ids[1], ids[4]].map(String).sort();
      await onlyLeft('rolling', survivors, 'the newest, the active and the stable build left');
    } finally {
      await controller.stop();
    }
  });
});
