import { replicaReportName, type RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import { objectKey, type KubeObject } from '../../../src/kube/index.ts';
import type { ReplicaSource, RuntimeReplicaView } from '../../../src/platform/runtime-replicas.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { impliedReport } from '../../../src/runtime-contract/implied-report.ts';
import { compareResourceVersions } from '../../../src/kube/resource-version.ts';
import type { ServingChanges } from './serving-changes.ts';

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
/** How long a replica that takes no traffic yet counts as starting (from its RuntimeReplica's creation). */
export const DEFAULT_STARTING_LIMIT_MS = 5 * 60_000;

export interface ReplicaReportsOptions {
  /** Apps keep what their status says this long after the last replica went ({@link DEFAULT_UNAVAILABLE_GRACE_MS}; 0: at once). */
  unavailableGraceMs?: number;
  /** A replica taking no traffic is starting this long after its creation, then no more ({@link DEFAULT_STARTING_LIMIT_MS}). */
  startingLimitMs?: number;
  /** Told the app keys to re-check when one of those times runs out (the controller enqueues them). */
  onTimeUp?: (keys: string[]) => void;
  /**
   * The apps by project and when each last changed as a replica acts on it: with them, an app a report leaves out
   * under its `acted` mark reads as the report it implies (`impliedReport`), and a mark moving re-checks the apps
   * it passed. Without them, a report's apps are all there is.
   */
  implied?: { apps: { list(namespace?: string): readonly RuntimeApp[] }; changes: ServingChanges };
}

/** While no replica counts: one is on its way, or none is but the last went less than the grace ago, or none at all. */
export type Availability = 'starting' | 'waiting' | 'unavailable';

/**
 * What the RuntimeApp controller reads of the runtime: the reports of the live replicas that take traffic,
 * and which app keys to reconcile when a replica, its lease or one of its reports changes. An app's report
 * on a replica is in that replica's RuntimeReplicaReport for the app's project, whose name is known
 * (`<replica>.<project>`): a lookup by key per replica, no scan and no index. A report object's change
 * enqueues only the apps whose report changed; a change in which replicas count (ready, its reports
 * complete, lease renewed for the first time, expired and removed, deleted) enqueues every app. Only replicas
 * whose reports are complete (their first list settled) count.
 *
 * While no replica counts, the runtime is `starting` as long as a live replica takes traffic or was created
 * less than the starting limit ago (it is listing), `waiting` (an app's status keeps what it said) while none is
 * but the last went less than the grace ago, and `unavailable` after that. So a lone replica's restart, the
 * next one live within the grace, rewrites no app's status, where saying "unavailable" and then "starting" would
 * be two writes an app of the installation (as the node lifecycle controller waits `node-monitor-grace-period`
 * before it marks a node's pods not ready); and a replica that never comes to take traffic does not hold the
 * apps' status for ever.
 */
export class ReplicaReports {
  readonly view: RuntimeReplicaView;
  readonly reports: ReplicaSource<RuntimeReplicaReport>;
  readonly #allApps: () => string[];
  readonly #now: () => number;
  readonly #indexes = new Map<string, { version: string; index: ReportIndex }>();
  /** Each report object's reports and mark as the last event showed them: what the next event is compared with. */
  readonly #seen = new Map<string, { index: ReportIndex; mark: Mark | undefined }>();
  readonly #graceMs: number;
  readonly #startingLimitMs: number;
  readonly #onTimeUp: ((keys: string[]) => void) | undefined;
  readonly #implied: ReplicaReportsOptions['implied'];
  #counted = '';
  /** Since when no replica has been on its way (epoch ms), as first noticed; `undefined` while one is. */
  #noneSince: number | undefined;
  #recheck: { at: number; timer: NodeJS.Timeout } | undefined;

  constructor(view: RuntimeReplicaView, reports: ReplicaSource<RuntimeReplicaReport>, allApps: () => string[], now: () => number = Date.now, options: ReplicaReportsOptions = {}) {
    this.view = view;
    this.reports = reports;
    this.#allApps = allApps;
    this.#now = now;
    this.#graceMs = options.unavailableGraceMs ?? DEFAULT_UNAVAILABLE_GRACE_MS;
    this.#startingLimitMs = options.startingLimitMs ?? DEFAULT_STARTING_LIMIT_MS;
    this.#onTimeUp = options.onTimeUp;
    this.#implied = options.implied;
  }

  /**
   * One entry per counted replica: its report of the app (listed, or implied by its mark when `app` is given), or
   * `undefined` when it has not acted on it. `[]`: no replica counts.
   */
  app(namespace: string, name: string, app?: RuntimeApp): Array<RuntimeAppReport | undefined> {
    const appKey = `${namespace}/${name}`;
    return this.view.ready(this.#now()).map((replica) => {
      const key = `${replica.metadata?.namespace ?? ''}/${replicaReportName(replica.metadata?.name ?? '', namespace)}`;
      const report = this.reports.get(key);
      if (!report) return undefined;
      return this.#index(key, report).get(appKey) ?? (app && this.#impliedBy(markOf(report), appKey, app));
    });
  }

  /**
   * The counted replicas that may still serve `app`, which is being deleted: those whose report of its project lists
   * it, or has a mark not past the deletion yet, or (without a mark) was cut by its bounds. A replica with no report
   * of the project serves none of its apps. `[]`: every counted replica has let it go, or none counts.
   */
  stillServing(namespace: string, name: string, app: RuntimeApp): string[] {
    const appKey = `${namespace}/${name}`;
    const replicas = this.view.ready(this.#now()).map((replica) => ({ namespace: replica.metadata?.namespace ?? '', name: replica.metadata?.name ?? '' }));
    return replicas
      .filter((replica) => {
        const key = `${replica.namespace}/${replicaReportName(replica.name, namespace)}`;
        const report = this.reports.get(key);
        if (!report) return false;
        if (this.#index(key, report).has(appKey)) return true;
        const mark = markOf(report);
        if (mark && this.#implied) return !this.#passed(mark, appKey, app);
        return (report.spec.omittedApps ?? 0) > 0;
      })
      .map((replica) => replica.name);
  }

  /** What a replica's mark says of an app its report leaves out: the plain report, once the mark has passed the app's latest change. */
  #impliedBy(mark: Mark | undefined, key: string, app: RuntimeApp): RuntimeAppReport | undefined {
    if (!mark || !this.#implied || !this.#passed(mark, key, app)) return undefined;
    return impliedReport(app, mark.defaultHost);
  }

  #passed(mark: Mark, key: string, app: RuntimeApp): boolean {
    return compareResourceVersions(this.#implied?.changes.version(key, app), mark.acted) <= 0;
  }

  /** While no replica counts, what the apps say: {@link Availability}. Asked again when a time it depends on runs out. */
  availability(): Availability {
    const now = this.#now();
    const live = this.view.live(now);
    if (live.some((replica) => replica.spec.takesTraffic ?? replica.spec.ready)) {
      this.#noneSince = undefined;
      return 'starting';
    }
    const startingUntil = Math.max(...live.map((replica) => Date.parse(replica.metadata?.creationTimestamp ?? '') + this.#startingLimitMs).filter((t) => !Number.isNaN(t)));
    if (startingUntil > now) {
      this.#noneSince = undefined;
      this.#recheckIn(startingUntil - now);
      return 'starting';
    }
    this.#noneSince ??= now;
    const left = this.#noneSince + this.#graceMs - now;
    if (left <= 0) return 'unavailable';
    this.#recheckIn(left);
    return 'waiting';
  }

  /** Re-checks every app, if what they observe changed, once `ms` have passed (one timer: the earliest asked for). */
  #recheckIn(ms: number): void {
    const at = this.#now() + ms;
    if (this.#recheck && this.#recheck.at <= at) return;
    clearTimeout(this.#recheck?.timer);
    const timer = setTimeout(() => {
      this.#recheck = undefined;
      if (this.#countedChanged()) this.#onTimeUp?.(this.#allApps());
    }, ms).unref();
    this.#recheck = { at, timer };
  }

  /** The app keys a RuntimeReplica event affects: its readiness only, so every app when the counted replicas changed. */
  onReplica = (): string[] => (this.#countedChanged() ? this.#allApps() : []);

  /**
   * The app keys a RuntimeReplicaReport event affects: those whose report in it changed, and, when its mark moved,
   * those of its project it leaves out whose implied report came or went.
   */
  onReport = (obj: KubeObject): string[] => {
    const key = objectKey(obj);
    const seen = this.#seen.get(key);
    const before = seen?.index ?? new Map<string, RuntimeAppReport>();
    const current = this.reports.get(key);
    const after = current ? this.#index(key, current) : new Map<string, RuntimeAppReport>();
    const mark = current && markOf(current);
    if (current) this.#seen.set(key, { index: after, mark });
    else {
      this.#seen.delete(key);
      this.#indexes.delete(key);
    }
    const changed = changedAppKeys(before, after);
    const project = (current ?? (obj as RuntimeReplicaReport)).spec?.project;
    if (!this.#implied || !project || sameMark(seen?.mark, mark)) return changed;
    const passed = (m: Mark | undefined, appKey: string, app: RuntimeApp) => m !== undefined && this.#passed(m, appKey, app);
    const sameHosts = sameDefaultHost(seen?.mark, mark);
    for (const app of this.#implied.apps.list(project)) {
      const appKey = objectKey(app);
      // An app listed now, or listed before and not now, is among `changed` already.
      if (app.metadata?.namespace !== project || after.has(appKey) || before.has(appKey)) continue;
      const was = passed(seen?.mark, appKey, app);
      const is = passed(mark, appKey, app);
      if (was !== is || (is && !sameHosts)) changed.push(appKey);
    }
    return changed;
  };

  /** The app keys a Lease event affects: every app when the set of counted replicas changed, else none. */
  onLease = (): string[] => (this.#countedChanged() ? this.#allApps() : []);

  /** Whether what an app's observation depends on changed: which replicas count, or, with none, whether one is on its way. */
  #countedChanged(): boolean {
    const ready = this.view.ready(this.#now()).map((r) => r.metadata?.name ?? '');
    // Asked even while replicas count, so the grace starts when the last one goes, not when none was seen before.
    const availability = this.availability();
    const counted = ready.length > 0 ? ready.join(',') : `(${availability})`;
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

/** A report's mark: how far its replica has acted on the project's apps, and how its implied reports name hosts. */
type Mark = { readonly acted: string; readonly defaultHost: NonNullable<RuntimeReplicaReport['spec']['defaultHost']> };

function markOf(report: RuntimeReplicaReport): Mark | undefined {
  const { acted, defaultHost } = report.spec;
  return acted !== undefined && defaultHost ? { acted, defaultHost } : undefined;
}

function sameMark(a: Mark | undefined, b: Mark | undefined): boolean {
  return a?.acted === b?.acted && sameDefaultHost(a, b);
}

function sameDefaultHost(a: Mark | undefined, b: Mark | undefined): boolean {
  const x = a?.defaultHost;
  const y = b?.defaultHost;
  return x?.domain === y?.domain && x?.scheme === y?.scheme && x?.port === y?.port;
}
