import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import { refuseDeleteAppliedElsewhere } from './applied-elsewhere.ts';
import type { DnsRecord } from '../apis/v1alpha1/dns-record.ts';
import { RECONCILE_REQUEST_ANNOTATION, RUNTIME_APP_FINALIZER, type RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { isConflict, objectClient, statusCodeOf, type KubeConnection, type KubeObject, type ObjectClient } from '../kube/index.ts';
import { listAll } from '../object-store/list-all.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import { appArtifactPrefix } from './artifact-keys.ts';
import { missingApp, type AppStore } from './app-store.ts';
import { CONTROLLER_ANSWER_MS } from './domains/controller-answer.ts';
import { APP_HOSTNAMES, DNS_RECORDS } from './resources.ts';
import { inParallel } from '../collections/in-parallel.ts';

/** A record the owner published at their own DNS provider for a host name of the deleted app. */
export interface PendingDnsRecord {
  record_type: string;
  name: string;
  value: string;
}

/** What deleting an app removed, and what is left for its owner to remove. */
export interface AppDeletionReport {
  app_id: string;
  /**
   * `deleted` once the app is gone; `deleting` when the operator had not finished its part (the stored
   * artifacts) within the bound: the deletion carries on, and the same DELETE answers again when it is done.
   */
  status: 'deleted' | 'deleting';
  deleted: {
    /** The app had an active build, and the pointer to it was removed: the runtime stopped routing to it. */
    routing_pointer: boolean;
    /** Kubernetes objects removed: the RuntimeApp (once gone), its Builds and its AppHostnames. */
    runtime_resources: number;
    /** Stored `.tar.zst` artifacts the operator removed (counted when the deletion began; 0 until the app is gone). */
    build_artifacts: number;
    environment_keys: number;
    /** Platform-owned records of the app's host names removed from managed project domains. */
    dns_records: number;
    /** Host names the app was bound to (deploy host names and attached custom domains), now unbound. */
    hostnames: string[];
  };
  /** Host names whose DNS the owner publishes themselves and which still point at the runtime. */
  dns_cleanup_pending: { hostname: string; records: PendingDnsRecord[] }[];
}

export interface AppDeletionDeps {
  readonly conn: KubeConnection;
  readonly store: AppStore;
  /** The artifact bucket, to count what the operator will delete; without it none are counted. */
  readonly artifacts: ObjectStore | undefined;
  /** How long the request waits for the app to be gone (the operator deleting its artifacts); default {@link CONTROLLER_ANSWER_MS}. */
  readonly answerWithinMs?: number | undefined;
}

/** Deletions of one app's objects under way at once. */
const PARALLEL = 8;

/**
 * Deletes an app, in an order that keeps every intermediate state valid: first the routing pointer (the
 * active build and deploy host names) is cleared, so the runtime stops serving the app before anything it
 * serves disappears; then its platform-owned DNS records, host names and Builds go (the garbage collector
 * would take them with the app, but the report counts them); then the RuntimeApp is deleted. Its stored
 * artifacts are outside the cluster: the RuntimeApp controller deletes them under the app's finalizer
 * ({@link RUNTIME_APP_FINALIZER}) and then lets the app go, whoever deleted it (this request, kubectl, a GitOps
 * prune). The request waits for that, at most `answerWithinMs`, and answers `status: deleting` past it.
 *
 * A failure on the way leaves an app that is no longer served and answers the next DELETE, which finishes
 * the job (an app already being deleted is waited for again): its report counts only what that call removed,
 * but names every host name the app had and all the DNS its owner must still remove, which the first call
 * records on the app (`UNBOUND_ANNOTATION`) before unbinding anything.
 */
export async function deleteApp(deps: AppDeletionDeps, project: string, appId: string): Promise<AppDeletionReport> {
  const { conn, store } = deps;
  const app = await store.apps.get(project, appId);
  if (!app) throw missingApp(project, appId);
  const deleting = app.metadata?.deletionTimestamp !== undefined;
  if (!deleting) refuseDeleteAppliedElsewhere(app);
  const hostnameClient = objectClient<AppHostname>(conn, APP_HOSTNAMES);
  const recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
  const [keys, builds, attached, records] = await Promise.all([
    deps.artifacts ? artifactCount(deps.artifacts, appArtifactPrefix(project, appId)) : 0,
    store.builds.list(project).then((l) => l.items.filter((b) => b.spec.app === appId)),
    hostnameClient.list(project).then((l) => l.items.filter((h) => h.spec.appRef.name === appId)),
    recordClient.list(project).then((l) => l.items.filter((r) => r.spec.owner?.kind === 'platform_app' && r.spec.owner.resourceId === appId)),
  ]);

  // An app already being deleted (by an earlier call, or kubectl) can no longer be changed: this call waits.
  const routed = !deleting && app.spec.activeBuildId !== undefined;
  // What the owner must still be told, with what an earlier, interrupted call already unbound: its host
  // names and AppHostnames are gone from the cluster, so only the app's own record of them remains.
  // An earlier call's record counts only while the app is still as that call left it (not served): a deploy
  // since then made the app anew, and what it was bound to before is reported by no one.
  const earlier = app.spec.activeBuildId === undefined ? recordedUnbound(app) : { hostnames: [], dnsCleanupPending: [] };
  const unbound = mergeUnbound(earlier, {
    hostnames: [...(app.spec.hostnames ?? []), ...attached.map((h) => h.spec.hostname)],
    dnsCleanupPending: pendingDns(app, attached),
  });
  if (!deleting) {
    await store.updateObject(
      project,
      appId,
      (live) => {
        const annotation = JSON.stringify(unbound);
        const { spec } = live;
        if (spec.activeBuildId === undefined && spec.hostnames === undefined && live.metadata?.annotations?.[UNBOUND_ANNOTATION] === annotation) return undefined;
        const { activeBuildId: _build, hostnames: _hosts, ...rest } = spec;
        return { ...live, metadata: { ...live.metadata, annotations: { ...live.metadata?.annotations, [UNBOUND_ANNOTATION]: annotation } }, spec: rest };
      },
      { uid: app.metadata?.uid },
    );
  }

  // Records before their AppHostnames, which own them: the garbage collector deletes a record whose owner
  // went, and one it got to first would be missing from the count.
  const removedRecords = await deleteAll(recordClient, project, records);
  const removedHostnames = await deleteAll(hostnameClient, project, attached);
  const removedBuilds = await deleteAll(store.builds, project, builds);
  // This incarnation only: an app deleted by a concurrent call and created again under the name is not ours.
  if (!deleting) {
    await store.apps.delete(project, appId, { preconditions: { uid: app.metadata?.uid } }).catch((err: unknown) => {
      if (!isConflict(err)) throw err;
    });
  } else {
    await requestTeardownNow(store.apps, app);
  }
  const gone = await store.waitAppRemoved(app, deps.answerWithinMs ?? CONTROLLER_ANSWER_MS);
  await Promise.all(builds.map((b) => store.settleBuild(project, b.metadata?.name ?? '', false)));
  // Without the finalizer nobody deleted the artifacts (an operator without the bucket): none are reported.
  const torndown = gone && app.metadata?.finalizers?.includes(RUNTIME_APP_FINALIZER) === true;

  return {
    app_id: appId,
    status: gone ? 'deleted' : 'deleting',
    deleted: {
      routing_pointer: routed,
      runtime_resources: (gone ? 1 : 0) + removedBuilds + removedHostnames,
      build_artifacts: torndown ? keys : 0,
      environment_keys: deleting ? 0 : Object.keys(app.spec.environment ?? {}).length + Object.keys(app.spec.databaseEnvironment ?? {}).length,
      dns_records: removedRecords,
      hostnames: unbound.hostnames,
    },
    dns_cleanup_pending: unbound.dnsCleanupPending,
  };
}

/**
 * Asks the controller to retry the teardown now: the caller repeating the DELETE expects it to be tried again, not
 * after a back-off that may outlast this request's bound. A merge patch of the annotation alone (the app is being
 * deleted: the store's writes refuse it), conditional on this incarnation's uid; best effort, so the request still
 * waits for the app whatever happens to it (gone meanwhile is what the caller waits for).
 */
async function requestTeardownNow(apps: AppStore['apps'], app: RuntimeApp): Promise<void> {
  const { namespace = '', name = '', uid } = app.metadata ?? {};
  const patch = { metadata: { uid, annotations: { [RECONCILE_REQUEST_ANNOTATION]: new Date().toISOString() } } };
  await apps.patch(namespace, name, patch, 'merge').catch((err: unknown) => {
    // Gone (404), another incarnation (409, 422: its uid differs): nothing of this app's to retry.
    const status = statusCodeOf(err);
    if (status !== 404 && status !== 409 && status !== 422) throw err;
  });
}

/** Annotation on a RuntimeApp being deleted: the host names it was bound to and their pending DNS (JSON). */
const UNBOUND_ANNOTATION = 'cloudwright.dev/unbound-hostnames';

interface Unbound {
  hostnames: string[];
  dnsCleanupPending: AppDeletionReport['dns_cleanup_pending'];
}

function recordedUnbound(app: RuntimeApp): Unbound {
  const text = app.metadata?.annotations?.[UNBOUND_ANNOTATION];
  try {
    const parsed = text === undefined ? undefined : (JSON.parse(text) as Partial<Unbound>);
    return { hostnames: parsed?.hostnames ?? [], dnsCleanupPending: parsed?.dnsCleanupPending ?? [] };
  } catch {
    return { hostnames: [], dnsCleanupPending: [] }; // written by someone else: ours is rewritten below
  }
}

/** Both, each host name once, sorted; a host name's pending records are those of either, once each. */
function mergeUnbound(a: Unbound, b: Unbound): Unbound {
  const pending = new Map<string, Map<string, PendingDnsRecord>>();
  for (const { hostname, records } of [...a.dnsCleanupPending, ...b.dnsCleanupPending]) {
    const byKey = pending.get(hostname) ?? new Map<string, PendingDnsRecord>();
    for (const r of records) byKey.set(`${r.record_type} ${r.name} ${r.value}`, r);
    pending.set(hostname, byKey);
  }
  return {
    hostnames: [...new Set([...a.hostnames, ...b.hostnames])].sort(),
    dnsCleanupPending: [...pending].sort(([x], [y]) => x.localeCompare(y)).map(([hostname, records]) => ({ hostname, records: [...records.values()] })),
  };
}

/**
 * Deploy host names and custom domains in `external_records` mode point at the runtime from the owner's
 * own DNS: those records must go too, or another app could later claim the name.
 */
function pendingDns(app: RuntimeApp, attached: readonly AppHostname[]): AppDeletionReport['dns_cleanup_pending'] {
  const pending = new Map<string, PendingDnsRecord[]>();
  for (const hostname of app.spec.hostnames ?? []) pending.set(hostname, []);
  for (const h of attached) {
    if (h.spec.dnsMode === 'managed_project_domain') {
      pending.delete(h.spec.hostname); // platform-owned records: deleted above (a deploy may have named it too)
      continue;
    }
    const records = (h.status?.dnsRecords ?? []).map((r) => ({ record_type: r.recordType, name: r.name, value: r.value }));
    pending.set(h.spec.hostname, [...(pending.get(h.spec.hostname) ?? []), ...records]);
  }
  return [...pending].sort(([a], [b]) => a.localeCompare(b)).map(([hostname, records]) => ({ hostname, records }));
}

async function artifactCount(artifacts: ObjectStore, prefix: string): Promise<number> {
  let count = 0;
  for await (const _ of listAll(artifacts, prefix)) count++;
  return count;
}

/** Deletes the objects; answers how many existed (one already gone is not counted). */
async function deleteAll(client: Pick<ObjectClient<KubeObject>, 'delete'>, namespace: string, items: readonly KubeObject[]): Promise<number> {
  const results = await inParallel(items, (item) => client.delete(namespace, item.metadata?.name ?? ''), PARALLEL);
  return results.filter(Boolean).length;
}
