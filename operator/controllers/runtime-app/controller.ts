import type { Registry } from 'prom-client';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { RUNTIME_APP_FINALIZER, type RuntimeApp, type RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import { keyOf, objectClient, objectKey, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { MAX_BUILDS_PER_APP } from '../../../src/platform/builds.ts';
import { BUILDS, RUNTIME_APPS } from '../../../src/platform/resources.ts';
import type { RuntimeReplicaView } from '../../../src/platform/runtime-replicas.ts';
import { Controller, type OwnsSpec } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { controllerRateLimiter } from '../../../src/controller-runtime/rate-limiter.ts';
import { desiredStatus, Reasons, type RuntimeObservation } from './desired-status.ts';
import { ReplicaReports, type ReplicaReportsOptions } from './replica-reports.ts';
import { ServingChanges } from './serving-changes.ts';
import { AssignedHosts, type AssignedHostsDeps } from './assigned-hosts.ts';
import { deleteAppArtifacts } from './artifact-teardown.ts';
import { buildsPastQuota, buildsToPrune, pruneBuilds } from './build-pruning.ts';
import { artifactsStoredBefore, DeletedBuilds, deleteOrphanedArtifacts, ORPHAN_GRACE_MS, OrphanScans } from './orphaned-artifacts.ts';
import { measureStoredBytes } from './stored-bytes.ts';
import { DEFAULT_PROJECT_STORED_BUILDS_QUOTA, keptBuilds, measuredBytesOf, storedBuilds } from '../../../src/platform/stored-builds-quota.ts';
import type { ProjectAccounts } from '../../../src/platform/project-account.ts';
import { withServed } from './served-release.ts';
import { nextRollout } from './rollout/machine.ts';
import { rolloutEvents } from './rollout/events.ts';
import { nextHistory } from './history.ts';
import type { RolloutStatus } from '../../../src/apis/v1alpha1/rollout.ts';
import type { MigrationsStatus } from '../../../src/apis/v1alpha1/migrations.ts';
import { migrationsStep, type ApplyMigrations } from './migrations.ts';
import { MigrationRuns } from './migration-runs.ts';
import type { MigrationOutcome } from '../../../src/platform/databases/migrations/migrator.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';

export interface RuntimeAppControllerDeps {
  kube: KubeConnection;
  apps: Informer<RuntimeApp>;
  /** The Build resources (for BuildNotFound); without them a named build is assumed to exist. */
  builds?: Informer<Build>;
  /**
   * The runtime replicas' RuntimeReplicas, Leases and RuntimeReplicaReports (the view's `reports` is
   * required); without them, apps with a build report RuntimeNotConfigured.
   */
  replicas?: RuntimeReplicaView;
  /**
   * The build-artifact bucket (cw-api's CW_S3_BUCKET). With it every app carries {@link RUNTIME_APP_FINALIZER}
   * and its deletion deletes its artifacts first; without it no finalizer is added, and one found on an app
   * being deleted is removed with a Warning Event (ArtifactsNotDeleted), so a deletion never waits forever.
   */
  artifacts?: ObjectStore;
  /** Builds kept per app past the active one and those served (default {@link MAX_BUILDS_PER_APP}); needs `builds` and `artifacts`. */
  maxBuildsPerApp?: number;
  /** What a project's stored builds may take, compressed, before its oldest go (default {@link DEFAULT_PROJECT_STORED_BUILDS_QUOTA}). */
  projectStoredBuildsQuota?: number;
  /** Applies a build's migrations (default: the libSQL client, `migrations.ts`); tests pass their own. */
  applyMigrations?: ApplyMigrations;
  /** Migration runs under way at once, across projects (default {@link MIGRATION_CONCURRENCY}; one per account at a time). */
  migrationConcurrency?: number;
  /** Whom a project's migration runs count against (`projectAccount`): one user's projects take one turn. Default: each project its own. */
  accounts?: ProjectAccounts;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
  /**
   * How long an app being deleted waits for the counted runtime replicas to let it go before its artifacts and
   * finalizer go all the same (default {@link LET_GO_LIMIT_MS}).
   */
  letGoLimitMs?: number;
  /** How long after the last runtime replica went apps still keep their status (default 30 s, `CW_RUNTIME_UNAVAILABLE_GRACE`). */
  unavailableGraceMs?: number;
  /** How often each app's stored artifacts are listed for those no Build names (default 6 h, `ORPHAN_SCAN_INTERVAL_MS`; tests). */
  orphanScanIntervalMs?: number;
  /** How old an artifact no Build names must be to be deleted (default 7 days, `ORPHAN_GRACE_MS`; tests). */
  orphanGraceMs?: number;
  /**
   * The caches an app's host names are decided from (`AssignedHosts`): with them the status says the hosts the
   * operator decides, as every replica does; without them (tests of the status alone), those the replicas report.
   */
  hosts?: Omit<AssignedHostsDeps, 'apps' | 'log' | 'onMoved'>;
}

/**
 * Migration runs under way at once (each holds a connection to cw-db and a share of its shard's time); more wait
 * their turn in the background, one per project at a time.
 */
export const MIGRATION_CONCURRENCY = 4;

/**
 * How long a deleted app waits for every counted replica to let it go. A replica acts on a deletion within its watch
 * lag (milliseconds; seconds on a loaded cluster); one that does not for this long is stuck, and a dead one stops
 * counting when its lease runs out. Under the API's own wait for a deletion (10 s) in the usual case, past it otherwise.
 */
export const LET_GO_LIMIT_MS = 30_000;

/** After a pass measured Builds, when the app's next one goes on measuring (20 a pass) and then judges the quota. */
const MEASURE_AGAIN_MS = 1_000;

/** Ready reasons that need someone's attention (Event type Warning). */
const WARNINGS: ReadonlySet<string> = new Set([
  Reasons.BuildFailed,
  Reasons.BuildNotFound,
  Reasons.InsufficientStorage,
  Reasons.QuotaExceeded,
  Reasons.DatabaseNotFound,
  Reasons.DatabaseNotReady,
  Reasons.RuntimeUnavailable,
  Reasons.CPULimitExceeded,
  Reasons.MemoryLimitExceeded,
  Reasons.MigrationFailed,
]);

function replicaReports(view: RuntimeReplicaView, apps: Informer<RuntimeApp>, now: () => number, options: ReplicaReportsOptions): ReplicaReports {
  if (!view.reports) throw new Error('the RuntimeApp controller reads the replicas’ RuntimeReplicaReports: give the view its reports informer');
  const changes = new ServingChanges();
  apps.onChange((app) => {
    const key = objectKey(app);
    changes.changed(key, apps.get(key));
  });
  return new ReplicaReports(view, view.reports, () => apps.list().map(objectKey), now, { ...options, implied: { apps, changes } });
}

/**
 * Reconciles RuntimeApps' status: reads the app from the cache, reads how each live runtime replica serves
 * it (its RuntimeReplicaReport for the app's project, from a watch), computes the status and writes it only when it changed. Serving is
 * cw-runtime's job, not this controller's: it watches the same RuntimeApps. Nothing is polled: a replica's
 * report changing re-checks the apps whose report changed, a replica starting or stopping to count (its
 * Lease; the RuntimeReplica controller removes expired ones) re-checks every app, and a Build appearing
 * re-checks its app. An Event is recorded only when Ready changes, after the status write: a restart
 * re-derives the same status, finds nothing to write and so records nothing again. Rollouts (status.rollout,
 * `rollout/machine.ts`) step on the same watches, and on a requeue only when a step's pause or analysis
 * interval runs out; their Events, too, follow a written change. Deletion: once every counted replica has let
 * the app go (its report's mark past the deletion; bounded), the app's stored build artifacts, which are outside
 * the cluster, are deleted under a finalizer before the app goes (its Builds, AppHostnames and records go by
 * their owner references). Retention: an app keeps its most
 * recently uploaded builds (and always the active one and those a replica serves); a Build appearing past that
 * deletes the oldest, Build and artifact, so builds applied with kubectl are pruned as deployed ones are.
 */
export function runtimeAppController(deps: RuntimeAppControllerDeps): Controller<RuntimeApp> {
  const apps = objectClient<RuntimeApp>(deps.kube, RUNTIME_APPS);
  const buildClient = objectClient<Build>(deps.kube, BUILDS);
  const now = deps.now ?? (() => new Date());
  // Set once the controller exists: the end of the grace (or of a starting replica's time) re-checks every app, as a replica event would.
  let enqueue: (key: string) => void = () => {};
  // A settled migration run: someone's deploy waits on it, so it goes ahead of the backlog.
  let settled: (key: string) => void = () => {};
  const runs = new MigrationRuns<MigrationOutcome>({ concurrency: deps.migrationConcurrency ?? MIGRATION_CONCURRENCY, onSettled: (key) => settled(key) });
  const migrate = migrationsStep({
    kube: deps.kube,
    apps: deps.apps,
    runs,
    ...(deps.accounts ? { accountOf: (project: string) => deps.accounts!.of(project) } : {}),
    ...(deps.builds ? { builds: deps.builds } : {}),
    ...(deps.applyMigrations ? { apply: deps.applyMigrations } : {}),
  });
  const reports =
    deps.replicas &&
    replicaReports(deps.replicas, deps.apps, () => now().getTime(), {
      ...(deps.unavailableGraceMs !== undefined ? { unavailableGraceMs: deps.unavailableGraceMs } : {}),
      onTimeUp: (keys) => keys.forEach((key) => enqueue(key)),
    });
  const deletedBuilds = new DeletedBuilds();
  const orphanScans = new OrphanScans(deps.orphanScanIntervalMs);
  /** Whether `key` names an app whose passes run retention: there, not being deleted. */
  const retaining = (key: string): boolean => {
    const app = deps.apps.get(key);
    return app !== undefined && !app.metadata?.deletionTimestamp;
  };
  const hasUnmeasured = (namespace: string, name: string): boolean =>
    deps.builds?.list(namespace).some((build) => build.metadata?.namespace === namespace && build.spec.app === name && measuredBytesOf(build) === undefined) ?? false;
  /** A Build's app is woken by its every change; one gone from the cache is noted for its artifact. */
  const onBuild = (build: Build): string[] => {
    const keys = buildOwnerKeys(build);
    const key = `${build.metadata?.namespace}/${build.metadata?.name}`;
    if (keys[0] && deps.builds?.get(key) === undefined) deletedBuilds.record(keys[0], build.spec.buildId);
    // A Build whose app runs no retention (none, or one being deleted, which a foreign finalizer may hold for
    // good) is measured by the project's other apps: its change wakes one of them, which judges the quota next.
    if (keys[0] && !retaining(keys[0])) return [...keys, ...retainingApp(build.metadata?.namespace ?? '', retaining, deps.apps)];
    return keys;
  };
  // Set once the controller exists: an app whose hosts moved because another changed is re-checked.
  let moved: (key: string) => void = () => {};
  const hosts = deps.hosts && new AssignedHosts({ ...deps.hosts, apps: deps.apps, log: deps.log, onMoved: (key) => moved(key) });
  const owns: OwnsSpec[] = [
    ...(deps.builds ? [{ kind: 'Build', source: deps.builds, mapToOwner: (build: KubeObject) => onBuild(build as Build) }] : []),
    ...(reports
      ? [
          { kind: 'RuntimeReplica', source: reports.view.replicas, mapToOwner: reports.onReplica },
          { kind: 'RuntimeReplicaReport', source: reports.reports, mapToOwner: reports.onReport },
          { kind: 'Lease', source: reports.view.leases, mapToOwner: reports.onLease },
        ]
      : []),
  ];

  const observe = (app: RuntimeApp, namespace: string, name: string): RuntimeObservation => {
    const buildId = app.spec.activeBuildId;
    if (!reports) return { kind: 'not-configured' };
    if (!buildId) return { kind: 'observed', replicas: [], buildExists: false };
    const buildExists = !deps.builds || deps.builds.get(`${namespace}/${buildResourceName(name, buildId)}`) !== undefined;
    const replicas = reports.app(namespace, name, app);
    // Decided again here too, so a reconcile (a resync) heals what an event missed, as each replica's does.
    hosts?.decide(`${namespace}/${name}`);
    if (replicas.length > 0) return { kind: 'observed', replicas, buildExists, ...(hosts ? { hosts: hosts.hostsOf(app) } : {}) };
    return { kind: reports.availability() };
  };

  /**
   * How long the deleted app still waits for the replicas serving it to let it go (a report's change wakes it sooner);
   * `undefined` once none does, or past {@link LET_GO_LIMIT_MS} from its deletion, when it goes with a Warning Event.
   * So the API's DELETE, which waits for the app to be gone, answers once no replica serves it any more, and no
   * replica is left serving a build whose artifact is gone.
   */
  const stillServed = (app: RuntimeApp, namespace: string, name: string, log: Logger): number | undefined => {
    const serving = reports?.stillServing(namespace, name, app) ?? [];
    if (serving.length === 0) return undefined;
    const left = Date.parse(app.metadata?.deletionTimestamp ?? '') + (deps.letGoLimitMs ?? LET_GO_LIMIT_MS) - now().getTime();
    if (left > 0) return left;
    log.warn('runtime replicas have not let the deleted app go; deleting it all the same', { replicas: serving });
    const message = `Runtime replicas ${serving.join(', ')} had not let the app go ${Math.round((deps.letGoLimitMs ?? LET_GO_LIMIT_MS) / 1000)} s after its deletion; its stored builds are deleted all the same.`;
    void deps.events.event(app, 'Warning', 'ReplicasNotLetGo', message);
    return undefined;
  };

  /** The finalizer's work: the artifacts go (idempotent: a restart part way lists what is left), then the finalizer. */
  const teardown = async (app: RuntimeApp, namespace: string, name: string, log: Logger): Promise<void> => {
    if (deps.artifacts) {
      const deleted = await deleteAppArtifacts(deps.artifacts, namespace, name);
      log.info('build artifacts deleted', { artifacts: deleted });
    } else {
      void deps.events.event(app, 'Warning', 'ArtifactsNotDeleted', 'The operator has no artifact bucket (CW_S3_BUCKET): stored builds of this app, if any, were left in the object store.');
    }
    await removeFinalizer(apps, app, RUNTIME_APP_FINALIZER);
  };

  /**
   * Retention's work: the app's builds past the number it keeps go, oldest first; then, while the project's builds
   * take more than its stored-builds quota, the project's oldest (any app's: its own are checked live before each
   * goes, and the deletions wake the apps they belonged to, whose passes take the next ones). A bounded number per pass.
   */
  const prune = async (app: RuntimeApp, namespace: string, name: string, log: Logger): Promise<'measuring' | undefined> => {
    if (!deps.builds || !deps.artifacts) return;
    const targets = { apps, builds: buildClient, artifacts: deps.artifacts };
    // Not the Builds of an app whose teardown deleted their artifacts: a foreign finalizer may hold them for good.
    const inProject = storedBuilds(
      deps.builds.list(namespace).filter((build) => build.metadata?.namespace === namespace),
      (owner) => (owner === name ? app : deps.apps.get(keyOf(namespace, owner))),
    );
    const kept = keptBuilds(app, reports?.app(namespace, name, app) ?? []);
    const due = buildsToPrune(
      inProject.filter((build) => build.spec.app === name),
      deps.maxBuildsPerApp ?? MAX_BUILDS_PER_APP,
      kept,
    );
    if (due.length > 0) log.info('old builds pruned', { builds: await pruneBuilds(targets, namespace, name, due) });
    const gone = new Set(due);
    const keptOf = (build: Build): boolean => {
      const owner = build.spec.app === name ? app : deps.apps.get(`${namespace}/${build.spec.app}`);
      // An app being deleted takes its builds with it: not retention's to touch.
      if (!owner || owner.metadata?.deletionTimestamp) return true;
      return keptBuilds(owner, reports?.app(namespace, build.spec.app, owner) ?? []).has(build.spec.buildId);
    };
    const left = inProject.filter((build) => !gone.has(build));
    // A Build deleted by hand: its artifact goes unless the app keeps it or another Build (of any name) names it.
    const named = new Set(left.filter((build) => build.spec.app === name).map((build) => build.spec.buildId));
    const deleted = deletedBuilds.take(`${namespace}/${name}`);
    try {
      const at = now().getTime();
      const listed = orphanScans.due(`${namespace}/${name}`, at) ? await artifactsStoredBefore(deps.artifacts, namespace, name, at - (deps.orphanGraceMs ?? ORPHAN_GRACE_MS)) : [];
      // What the app keeps or a Build names is passed over there.
      const orphaned = await deleteOrphanedArtifacts(targets, namespace, name, [...new Set([...deleted, ...listed])], new Set([...kept, ...named]));
      if (orphaned > 0) log.info('artifacts of builds deleted by hand deleted', { artifacts: orphaned });
    } catch (err) {
      for (const buildId of deleted) deletedBuilds.record(`${namespace}/${name}`, buildId);
      throw err;
    }
    // Counted as the bucket holds them: a build not measured yet is measured first, and its write wakes the next pass.
    // Each app measures its own (every app measuring the whole project's made each reconcile up to 20 round trips
    // while a project's apps were created) and those no app retains: of none, or of one being deleted, which a
    // foreign finalizer can hold for good, and whose Build would otherwise keep the quota from ever being judged.
    const ownedHere = (build: Build) => build.spec.app === name || !retaining(`${namespace}/${build.spec.app}`);
    // Measured some: this app's next pass goes on (the writes wake their own apps, which may never pass).
    if (!(await measureStoredBytes(targets, namespace, left.filter(ownedHere)))) return 'measuring';
    if (left.some((build) => measuredBytesOf(build) === undefined)) return;
    const past = buildsPastQuota(left, deps.projectStoredBuildsQuota ?? DEFAULT_PROJECT_STORED_BUILDS_QUOTA, keptOf);
    for (const [owner, builds] of Map.groupBy(past, (build) => build.spec.app)) {
      log.info('builds past the project quota pruned', { app: owner, builds: await pruneBuilds(targets, namespace, owner, builds) });
    }
  };

  /**
   * Writes the status the app's observation calls for, when it changed, with an Event when Ready changes and
   * when the rollout moves; returns when a rollout's timer runs out (milliseconds).
   */
  const writeStatus = async (app: RuntimeApp, namespace: string, name: string): Promise<number | undefined> => {
    const at = now();
    const { rollout, requeueAfter: rolloutAfter } = nextRollout({ app, replicas: reports?.app(namespace, name, app) ?? [], now: at });
    const migrations = await migrate(app);
    const requeueAfter = earliest(rolloutAfter, migrations.requeueAfter);
    const planned = withMigrations(withRollout(app, rollout), migrations.status);
    const computed = withHistory(app, withServed(planned, desiredStatus(planned, at, observe(app, namespace, name))), at);
    const status = { ...computed, conditions: withStalled('RuntimeApp', computed.conditions, app.metadata?.generation, at) };
    if (!statusChanged(app.status, status)) return requeueAfter;
    const before = findCondition(app.status?.conditions, 'Ready');
    const written = await apps.patchStatus(namespace, name, {
      metadata: { resourceVersion: app.metadata?.resourceVersion },
      status: statusPatch(app.status, status),
    });
    const after = findCondition(written.status?.conditions, 'Ready');
    // RolloutAborted is told by the rollout's own Event.
    if (after && (before?.status !== after.status || before.reason !== after.reason) && after.reason !== Reasons.RolloutAborted) {
      void deps.events.event(written, WARNINGS.has(after.reason) ? 'Warning' : 'Normal', after.reason, after.message ?? '');
    }
    for (const e of rolloutEvents(app.status?.rollout, written.status?.rollout)) void deps.events.event(written, e.type, e.reason, e.message);
    return requeueAfter;
  };

  const controller = new Controller<RuntimeApp>({
    name: 'runtimeapp',
    kind: 'RuntimeApp',
    source: deps.apps,
    owns,
    // A run's turn is its project's account's, and an app's hosts are decided from the name caches: each listed first.
    caches: [...(deps.accounts ? [deps.accounts] : []), ...(hosts?.caches ?? [])],
    registry: deps.registry,
    log: deps.log,
    // A reconcile waits on the apiserver (finalizer, status, Event): with thousands of apps applied at once the
    // workers' round trips, not the CPU, bound how fast they become Ready (docs/scale.md: 2 → 8 workers).
    workers: 8,
    // client-go's default backoff, capped at a minute per key, for failed status writes and prunes only: a missing build
    // or runtime is waited for by watch, not re-checked.
    rateLimiter: controllerRateLimiter<string>({ maxMs: 60_000 }),
    // Runs applying files are waited for (a bound): the next operator must not start on a file still going.
    onStop: () => {
      hosts?.stop();
      return runs.stop();
    },
    reconcile: async (key, { namespace, name, log }) => {
      let app = deps.apps.get(key);
      if (!app || app.metadata?.deletionTimestamp) {
        deletedBuilds.forget(key);
        orphanScans.forget(key);
        // Its Builds not measured yet are the project's other apps' to measure from now on (`ownedHere`), and no
        // Build event says so: one of them is woken.
        if (hasUnmeasured(namespace, name)) retainingApp(namespace, retaining, deps.apps).forEach((other) => enqueue(other));
      }
      if (!app) return;
      if (app.metadata?.deletionTimestamp) {
        if (!hasFinalizer(app, RUNTIME_APP_FINALIZER)) return;
        const waitMs = stillServed(app, namespace, name, log);
        if (waitMs !== undefined) return { requeueAfter: waitMs };
        await teardown(app, namespace, name, log);
        return;
      }
      // Before anything is deployed to it, when the app is new: a delete from then on always cleans up.
      if (deps.artifacts) app = await addFinalizer(apps, app, RUNTIME_APP_FINALIZER);
      const requeueAfter = await writeStatus(app, namespace, name);
      // After the status: a bucket that fails the deletions retries them without holding the status back.
      const measuring = await prune(app, namespace, name, log);
      const next = earliest(requeueAfter, measuring ? MEASURE_AGAIN_MS : undefined);
      return next === undefined ? undefined : { requeueAfter: next };
    },
  });
  enqueue = (key) => controller.enqueue(key, 'backlog');
  settled = (key) => controller.enqueue(key);
  // Behind the apps' own changes: an app another's change moved a name from (thousands at a start, or for a domain).
  moved = (key) => controller.enqueue(key, 'backlog');
  return controller;
}

/** A merge patch turning `before` into `after`: fields `after` drops are set to null (a merge patch keeps what it does not mention). */
export function statusPatch(before: RuntimeAppStatus | undefined, after: RuntimeAppStatus): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...after };
  for (const field of Object.keys(before ?? {})) if (!(field in after)) patch[field] = null;
  return patch;
}

/** The app as if its status held `rollout` (none: the field goes). */
function withRollout(app: RuntimeApp, rollout: RolloutStatus | undefined): RuntimeApp {
  const { rollout: _old, ...status } = app.status ?? {};
  return { ...app, status: rollout ? { ...status, rollout } : status };
}

/** `status` with the deploy history it brings (`history.ts`); none before a first build. */
function withHistory(app: RuntimeApp, status: RuntimeAppStatus, at: Date): RuntimeAppStatus {
  const history = nextHistory(app, status, at);
  return history ? { ...status, history } : status;
}

/**
 * The app as if its status held `migrations` (none: the field goes), and `served`: the spec's release unless it is
 * held back for its migrations, when the release served before stays recorded (what keeps serving).
 */
function withMigrations(app: RuntimeApp, migrations: MigrationsStatus | undefined): RuntimeApp {
  const { migrations: _old, ...status } = app.status ?? {};
  return { ...app, status: migrations ? { ...status, migrations } : status };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** The first app of `namespace` by name whose passes run retention, if any: one app, not all of them. */
function retainingApp(namespace: string, retaining: (key: string) => boolean, apps: { list(namespace?: string): readonly RuntimeApp[] }): string[] {
  const keys = apps
    .list(namespace)
    .filter((app) => app.metadata?.namespace === namespace)
    .map((app) => `${namespace}/${app.metadata?.name}`)
    .filter(retaining)
    .sort();
  return keys.slice(0, 1);
}

/** A Build re-checks the app it belongs to (its `spec.app`; the API also makes the app its owner). */
function buildOwnerKeys(build: Build): string[] {
  const namespace = build.metadata?.namespace;
  return namespace && build.spec?.app ? [`${namespace}/${build.spec.app}`] : [];
}
