import { replicaReportName, type RuntimeReplicaReport, type RuntimeReplicaReportSpec } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { RUNTIME_REPLICA_LABEL, type RuntimeReplica, type RuntimeReplicaSpec } from '../src/apis/v1alpha1/runtime-replica.ts';
import { inParallel } from '../src/collections/in-parallel.ts';
import { formatMicroTime, KubeApiError, LEASES, objectClient, type KubeConnection, type ObjectClient, type ResourceRef } from '../src/kube/index.ts';
import { PROJECT_LABEL, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import type { ReplicaLease } from '../src/platform/runtime-replicas.ts';
import type { Logger } from '../src/logging/log.ts';
import { projectReports, replicaSpec, reportChanges, type ReplicaSnapshot } from './replica-reports.ts';

export interface ReplicaIdentity {
  /** The platform's namespace, where the replica's RuntimeReplica, Lease and RuntimeReplicaReports live. */
  readonly namespace: string;
  /** The replica's name: its pod's in a cluster. */
  readonly name: string;
  /** In a cluster, the pod owning its objects, so the garbage collector removes them with it. */
  readonly pod?: { readonly name: string; readonly uid: string };
}

export interface ReplicaPublisherOptions {
  kube: KubeConnection;
  identity: ReplicaIdentity;
  /** Lease duration; the lease is renewed every quarter of it (40 s → every 10 s, as kubelet's node lease). */
  leaseDurationSeconds: number;
  /** What to publish now (read from memory): with `projects`, the reports of those projects only. */
  snapshot: (projects?: ReadonlySet<string>) => ReplicaSnapshot;
  log: Logger;
  /** How long changes are gathered before one write (default 100 ms): reports change per deploy, not per request. */
  coalesceMs?: number;
  /** Asked every minute or so for the projects whose reports may be rewritten lazily (their mark moved quietly). */
  lazily?: () => Iterable<string>;
  /** Where the reports go (default the RuntimeReplicaReports): a test points it at an older CRD of its own group. */
  reportsResource?: ResourceRef;
}

const FIELD_MANAGER = 'cw-runtime';
/** Every report is rebuilt at every this many heartbeats (every 5 minutes with the default 40 s lease). */
const FULL_PUBLISH_BEATS = 30;
/** Reports whose mark moved by changes the replica's cache hides are written at every this many heartbeats (a minute). */
const LAZY_PUBLISH_BEATS = 6;

/**
 * Publishes that this replica is alive as its Lease, whether it takes traffic as its RuntimeReplica, and what
 * it does for the apps of each project as one RuntimeReplicaReport per project. It is the only writer of all
 * of them (server-side apply, forced). Reports are written when they change, gathered for `coalesceMs` so a
 * burst of deploys is one pass, and only the projects whose reports changed are rewritten; a project with
 * no reports left has its object deleted. No report is written before they count (the snapshot's `ready`):
 * then all at once, before the RuntimeReplica, so a replica that turns ready has its reports already out. The Lease is renewed on a timer, apart from the reports, so a heartbeat
 * never rewrites (or sends to every watcher) them. When the operator removed an expired replica's objects
 * (this process was paused, say), the next renewal creates the Lease again and everything is written
 * again. A graceful stop deletes them all.
 */
export class ReplicaPublisher {
  readonly #options: ReplicaPublisherOptions;
  readonly #replicas: ObjectClient<RuntimeReplica>;
  readonly #reports: ObjectClient<RuntimeReplicaReport>;
  readonly #leases: ObjectClient<ReplicaLease>;
  /** The RuntimeReplica spec last written, as JSON (what the operator and cw-api read of this replica). */
  #written: string | undefined;
  /** Each project's report as last written (`reportFingerprint`), by project. */
  readonly #writtenReports = new Map<string, string>();
  #leaseUid: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #scheduled: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #beating: Promise<void> = Promise.resolve();
  #stopped = false;
  /** Projects whose reports may have changed since the last publish; `#everything`: every project's may have. */
  #dirty = new Set<string>();
  #everything = true;
  #beats = 0;
  /** The apiserver dropped a report's mark (its CRD predates it): reports must list every app again. */
  #marksDropped = false;
  /** Wait before retrying a failed write: from 1 s, doubling to 30 s, reset by a write that succeeds. */
  #retryMs = 1000;

  constructor(options: ReplicaPublisherOptions) {
    this.#options = options;
    this.#replicas = objectClient<RuntimeReplica>(options.kube, RUNTIME_REPLICAS);
    this.#reports = objectClient<RuntimeReplicaReport>(options.kube, options.reportsResource ?? RUNTIME_REPLICA_REPORTS);
    this.#leases = objectClient<ReplicaLease>(options.kube, LEASES);
  }

  get identity(): ReplicaIdentity {
    return this.#options.identity;
  }

  /** Takes the lease and writes the first report; then renews every quarter of the lease duration. */
  async start(): Promise<void> {
    await this.#renew();
    await this.#publish();
    if (this.#stopped) return; // stopped while starting: no heartbeat after stop() has run
    const every = (this.#options.leaseDurationSeconds * 1000) / 4;
    // #beat catches its own errors; the promise is kept so stop() waits for a renewal in flight.
    this.#heartbeat = setInterval(() => {
      this.#beating = this.#beat();
    }, every);
  }

  /**
   * Something a report of `project` depends on changed (no project: any report may have): write it soon, coalesced.
   * A publish rebuilds only the reports of the projects named since the last, so one deploy costs its project's
   * apps, not every app of the installation.
   */
  changed(project?: string): void {
    if (project === undefined) this.#everything = true;
    else this.#dirty.add(project);
    this.#schedule();
  }

  /** Only the RuntimeReplica may have changed (its readiness): write it soon, no report rebuilt. */
  replicaChanged(): void {
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped || this.#scheduled) return;
    this.#scheduled = setTimeout(() => {
      this.#scheduled = undefined;
      this.#writing = this.#writing
        .then(() => this.#publish())
        .then(
          () => void (this.#retryMs = 1000),
          (err: unknown) => {
            this.#options.log.warn('cannot publish the replica report; retrying', { err, retryInMs: this.#retryMs });
            setTimeout(() => this.changed(), this.#retryMs).unref();
            this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
          },
        );
    }, this.#options.coalesceMs ?? 100);
  }

  /** Stops renewing and deletes the replica's RuntimeReplica, reports and Lease: it stops counting at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#scheduled);
    await Promise.all([this.#writing.catch(() => {}), this.#beating]);
    const { namespace, name } = this.#options.identity;
    await this.#replicas.delete(namespace, name);
    await inParallel([...this.#writtenReports.keys()], (project) => this.#reports.delete(namespace, replicaReportName(name, project)));
    this.#writtenReports.clear();
    await this.#leases.delete(namespace, name);
  }

  async #beat(): Promise<void> {
    try {
      await this.#renew();
      // Also publishes what changed without a signal: whether the reports count after the first pass's time limit, at every beat,
      // and every report once in a while, in case something a report shows changed without saying so.
      if (++this.#beats % FULL_PUBLISH_BEATS === 0) this.changed();
      else this.#schedule();
      if (this.#beats % LAZY_PUBLISH_BEATS === 0) for (const project of this.#options.lazily?.() ?? []) this.#dirty.add(project);
    } catch (err) {
      this.#options.log.warn('cannot renew the replica lease', { err });
    }
  }

  #metadata(name = this.#options.identity.name, labels: Record<string, string> = { [RUNTIME_REPLICA_LABEL]: 'true' }): NonNullable<RuntimeReplica['metadata']> {
    const { namespace, pod } = this.#options.identity;
    return { namespace, name, labels, ...(pod ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid }] } : {}) };
  }

  async #renew(): Promise<void> {
    if (this.#stopped) return;
    const now = formatMicroTime(Date.now());
    const lease = await this.#leases.apply(
      {
        metadata: this.#metadata(),
        spec: { holderIdentity: this.#options.identity.name, leaseDurationSeconds: this.#options.leaseDurationSeconds, renewTime: now },
      },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    const uid = lease.metadata?.uid;
    if (this.#leaseUid !== undefined && uid !== this.#leaseUid) {
      // The lease was removed (expired) and is new: so was the report, write it again.
      this.#options.log.warn('the replica lease had expired and was removed; publishing again');
      this.#written = undefined;
      this.#writtenReports.clear();
      this.#everything = true;
    }
    this.#leaseUid = uid;
  }

  async #publish(): Promise<void> {
    if (this.#stopped) return;
    // Reports count only once the replica says they cover every app (`ready`): until then only its RuntimeReplica is
    // written, and the projects named meanwhile wait. A new replica's first pass at 100,000 apps rewrote each of
    // 1,000 projects' reports as its apps settled one by one, tens of KB each time, for an operator that reads none.
    const head = this.#options.snapshot(new Set());
    if (!head.ready) {
      await this.#publishReplica(head);
      return;
    }
    const projects = this.#everything ? undefined : this.#dirty;
    this.#everything = false;
    this.#dirty = new Set();
    try {
      const snapshot = this.#options.snapshot(projects);
      // Without marks once the apiserver drops them: the snapshot lists every app then (`marksKept`).
      const marks = this.#marksDropped ? undefined : snapshot.marks;
      await this.#publishReports(projectReports(this.#options.identity.name, snapshot.apps, undefined, undefined, marks), projects);
      await this.#publishReplica(snapshot);
    } catch (err) {
      // Whatever was not written is written by the retry, which rebuilds every report.
      this.#everything = true;
      throw err;
    }
  }

  async #publishReplica(snapshot: ReplicaSnapshot): Promise<void> {
    const spec = replicaSpec(snapshot);
    const body = JSON.stringify(spec);
    if (body === this.#written) return;
    await this.#replicas.apply({ metadata: this.#metadata(), spec }, { fieldManager: FIELD_MANAGER, force: true });
    this.#written = body;
  }

  #dropMarks(): void {
    if (this.#marksDropped) return;
    this.#marksDropped = true;
    this.#options.log.warn('the RuntimeReplicaReport CRD has no field for the reports’ mark (apply crds/ from this version first): listing every app');
    this.changed();
  }

  /** Whether reports may leave apps out under their mark: not once the apiserver was seen dropping it. */
  get marksKept(): boolean {
    return !this.#marksDropped;
  }

  /** The RuntimeReplica spec as last written; undefined before the first write, and after its Lease expired and it was removed. */
  get written(): RuntimeReplicaSpec | undefined {
    return this.#written === undefined ? undefined : (JSON.parse(this.#written) as RuntimeReplicaSpec);
  }

  /**
   * Writes the projects whose reports changed and deletes those with none left (of `projects` only, when given); each
   * is recorded as it succeeds.
   */
  async #publishReports(desired: ReadonlyMap<string, RuntimeReplicaReportSpec>, projects?: ReadonlySet<string>): Promise<void> {
    const { namespace, name } = this.#options.identity;
    const changes = reportChanges(this.#writtenReports, desired, projects);
    await inParallel(changes.apply, async ({ project, spec, fingerprint }) => {
      if (spec.omittedApps) this.#options.log.warn('more apps in one project than its report holds; the rest show RollingOut', { project, reported: spec.apps.length, omitted: spec.omittedApps });
      const metadata = this.#metadata(replicaReportName(name, project), { [RUNTIME_REPLICA_LABEL]: name, [PROJECT_LABEL]: project });
      const written = await this.#reports.apply({ metadata, spec }, { fieldManager: FIELD_MANAGER, force: true }).catch((err: unknown) => {
        // A CRD not upgraded yet: server-side apply refuses fields its schema does not declare, and the retry goes
        // without the mark (so listing every app).
        if (spec.acted !== undefined && refusesMark(err)) this.#dropMarks();
        throw err;
      });
      // Or it prunes them (a write that is not an apply). Without the mark, an app left out reads as not acted on.
      if (spec.acted !== undefined && written.spec?.acted === undefined) this.#dropMarks();
      this.#writtenReports.set(project, fingerprint);
    });
    await inParallel(changes.delete, async (project) => {
      await this.#reports.delete(namespace, replicaReportName(name, project));
      this.#writtenReports.delete(project);
    });
  }
}

/** The apiserver refused an apply for the mark's fields, which its CRD does not declare (server-side apply's schema check). */
function refusesMark(err: unknown): boolean {
  return err instanceof KubeApiError && /\.spec\.(acted|defaultHost)\b[^\n]*field not declared in schema/.test(err.message);
}
