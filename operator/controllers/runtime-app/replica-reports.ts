import { replicaReportName, type RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import { objectKey, type KubeObject } from '../../../src/kube/index.ts';
import type { ReplicaSource, RuntimeReplicaView } from '../../../src/platform/runtime-replicas.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';

export type { DeployFailure, FailureReason, RuntimeAppReport } from '../../../src/runtime-contract/report.ts';

/** A replica's reports by app key (`namespace/app`). */
export type ReportIndex = ReadonlyMap<string, RuntimeAppReport>;

/** The reports of one RuntimeReplicaReport (one replica, one project), by app key. */
export function indexReports(report: RuntimeReplicaReport | undefined): ReportIndex {
  return new Map((report?.spec.apps ?? []).map((one) => [`${one.namespace}/${one.app}`, one]));
}

/** The app keys whose report differs between two versions of one replica's reports (added, changed or gone). */
export function changedAppKeys(before: ReportIndex, after: ReportIndex): string[] {
  const keys: string[] = [];
  for (const [key, report] of after) {
    const old = before.get(key);
    if (!old || JSON.stringify(old) !== JSON.stringify(report)) keys.push(key);
  }
  for (const key of before.keys()) if (!after.has(key)) keys.push(key);
  return keys;
}

/** How long no replica may run before every app says RuntimeUnavailable (`CW_RUNTIME_UNAVAILABLE_GRACE`). */
export const DEFAULT_UNAVAILABLE_GRACE_MS = 30_000;

export interface ReplicaReportsOptions {
  /** Apps keep what their status says this long after the last replica went ({@link DEFAULT_UNAVAILABLE_GRACE_MS}; 0: at once). */
  unavailableGraceMs?: number;
  /** Told the app keys to re-check when the grace runs out with still no replica (the controller enqueues them). */
  onGraceEnded?: (keys: string[]) => void;
}

/**
 * What the RuntimeApp controller reads of the runtime: the reports of the live replicas that take traffic,
 * and which app keys to reconcile when a replica, its lease or one of its reports changes. An app's report
 * on a replica is in that replica's RuntimeReplicaReport for the app's project, whose name is known
 * (`<replica>.<project>`): a lookup by key per replica, no scan and no index. A report object's change
 * enqueues only the apps whose report changed; a change in which replicas count (ready, its reports
 * complete, lease renewed for the first time, expired and removed, deleted) enqueues every app. Only replicas
 * whose reports are complete (their first list settled) count.
 *
 * While no replica counts, an app is `starting` (its status keeps what it said of a spec already served)
 * as long as some replica is live, even one still listing, or the last one went less than the grace ago; only
 * then `unavailable`. So a lone replica's restart, the next one live within the grace, rewrites no app's
 * status, where saying "unavailable" and then "starting" would be two writes an app of the installation (as
 * the node lifecycle controller waits `node-monitor-grace-period` before it marks a node's pods not ready).
 */
export class ReplicaReports {
  readonly view: RuntimeReplicaView;
  readonly reports: ReplicaSource<RuntimeReplicaReport>;
  readonly #allApps: () => string[];
  readonly #now: () => number;
  readonly #indexes = new Map<string, { version: string; index: ReportIndex }>();
  /** Each report object's reports as the last event showed them: what the next event is compared with. */
  readonly #seen = new Map<string, ReportIndex>();
  readonly #graceMs: number;
  readonly #onGraceEnded: ((keys: string[]) => void) | undefined;
  #counted = '';
  /** Since when no replica has been live (epoch ms), as first noticed; `undefined` while one is. */
  #noneSince: number | undefined;
  #graceTimer: NodeJS.Timeout | undefined;

  constructor(view: RuntimeReplicaView, reports: ReplicaSource<RuntimeReplicaReport>, allApps: () => string[], now: () => number = Date.now, options: ReplicaReportsOptions = {}) {
    this.view = view;
    this.reports = reports;
    this.#allApps = allApps;
    this.#now = now;
    this.#graceMs = options.unavailableGraceMs ?? DEFAULT_UNAVAILABLE_GRACE_MS;
    this.#onGraceEnded = options.onGraceEnded;
  }

  /** One entry per counted replica: its report of the app, or `undefined` when it has not acted on it. `[]`: no replica counts. */
  app(namespace: string, name: string): Array<RuntimeAppReport | undefined> {
    return this.view.ready(this.#now()).map((replica) => {
      const key = `${replica.metadata?.namespace ?? ''}/${replicaReportName(replica.metadata?.name ?? '', namespace)}`;
      const report = this.reports.get(key);
      return report && this.#index(key, report).get(`${namespace}/${name}`);
    });
  }

  /**
   * While no replica counts: whether a replica is on its way (live, perhaps still listing, or the last one went
   * less than the grace ago), so an app keeps what its status said, rather than the runtime being unavailable.
   */
  starting(): boolean {
    const now = this.#now();
    if (this.view.live(now).length > 0) {
      this.#noneSince = undefined;
      return true;
    }
    this.#noneSince ??= now;
    const left = this.#noneSince + this.#graceMs - now;
    if (left <= 0) return false;
    if (!this.#graceTimer) {
      this.#graceTimer = setTimeout(() => {
        this.#graceTimer = undefined;
        if (this.#countedChanged()) this.#onGraceEnded?.(this.#allApps());
      }, left).unref();
    }
    return true;
  }

  /** The app keys a RuntimeReplica event affects: its readiness only, so every app when the counted replicas changed. */
  onReplica = (): string[] => (this.#countedChanged() ? this.#allApps() : []);

  /** The app keys a RuntimeReplicaReport event affects: those whose report in it changed. */
  onReport = (obj: KubeObject): string[] => {
    const key = objectKey(obj);
    const before = this.#seen.get(key) ?? new Map<string, RuntimeAppReport>();
    const current = this.reports.get(key);
    const after = current ? this.#index(key, current) : new Map<string, RuntimeAppReport>();
    if (current) this.#seen.set(key, after);
    else {
      this.#seen.delete(key);
      this.#indexes.delete(key);
    }
    return changedAppKeys(before, after);
  };

  /** The app keys a Lease event affects: every app when the set of counted replicas changed, else none. */
  onLease = (): string[] => (this.#countedChanged() ? this.#allApps() : []);

  /** Whether what an app's observation depends on changed: which replicas count, or, with none, whether one is on its way. */
  #countedChanged(): boolean {
    const ready = this.view.ready(this.#now()).map((r) => r.metadata?.name ?? '');
    // Asked even while replicas count, so the grace starts when the last one goes, not when none was seen before.
    const starting = this.starting();
    const counted = ready.length > 0 ? ready.join(',') : starting ? '(starting)' : '(unavailable)';
    if (counted === this.#counted) return false;
    this.#counted = counted;
    return true;
  }

  /** Indexes are kept per object version: an app's reconcile does not rescan its project's reports. */
  #index(key: string, report: RuntimeReplicaReport): ReportIndex {
    const version = `${report.metadata?.uid ?? ''}/${report.metadata?.resourceVersion ?? ''}`;
    const cached = this.#indexes.get(key);
    if (cached?.version === version) return cached.index;
    const index = indexReports(report);
    this.#indexes.set(key, { version, index });
    return index;
  }
}
