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

/**
 * What the RuntimeApp controller reads of the runtime: the reports of the live replicas that take traffic,
 * and which app keys to reconcile when a replica, its lease or one of its reports changes. An app's report
 * on a replica is in that replica's RuntimeReplicaReport for the app's project, whose name is known
 * (`<replica>.<project>`): a lookup by key per replica, no scan and no index. A report object's change
 * enqueues only the apps whose report changed; a replica starting or stopping to count (ready, its reports
 * complete, lease renewed for the first time, expired and removed, deleted) enqueues every app, whose replica
 * count changed. Only replicas whose reports are complete (their first list settled) count.
 */
export class ReplicaReports {
  readonly view: RuntimeReplicaView;
  readonly reports: ReplicaSource<RuntimeReplicaReport>;
  readonly #allApps: () => string[];
  readonly #now: () => number;
  readonly #indexes = new Map<string, { version: string; index: ReportIndex }>();
  /** Each report object's reports as the last event showed them: what the next event is compared with. */
  readonly #seen = new Map<string, ReportIndex>();
  #counted = '';

  constructor(view: RuntimeReplicaView, reports: ReplicaSource<RuntimeReplicaReport>, allApps: () => string[], now: () => number = Date.now) {
    this.view = view;
    this.reports = reports;
    this.#allApps = allApps;
    this.#now = now;
  }

  /** One entry per counted replica: its report of the app, or `undefined` when it has not acted on it. `[]`: no replica counts. */
  app(namespace: string, name: string): Array<RuntimeAppReport | undefined> {
    return this.view.ready(this.#now()).map((replica) => {
      const key = `${replica.metadata?.namespace ?? ''}/${replicaReportName(replica.metadata?.name ?? '', namespace)}`;
      const report = this.reports.get(key);
      return report && this.#index(key, report).get(`${namespace}/${name}`);
    });
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

  /** Whether the replicas taking traffic, or which of them count, changed (an app's observation depends on both). */
  #countedChanged(): boolean {
    const counted = this.view
      .serving(this.#now())
      .map((r) => `${r.metadata?.name ?? ''}${r.spec.ready ? '' : ' (starting)'}`)
      .join(',');
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
