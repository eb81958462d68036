import { createHash } from 'node:crypto';
import { MAX_FAILURE_MESSAGE, MAX_REPORT_BYTES, MAX_REPORTED_APPS, type RuntimeReplicaReportSpec } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplicaSpec } from '../src/apis/v1alpha1/runtime-replica.ts';
import type { DefaultHostSettings } from '../src/runtime-contract/implied-report.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';

/** What a replica publishes: whether it takes traffic, whether its reports also cover every app (ready), and its reports (already in key order). */
export interface ReplicaSnapshot {
  readonly ready: boolean;
  readonly takesTraffic: boolean;
  /** Where cw-api reaches this replica's status port (app logs). */
  readonly statusURL?: string;
  /** The reports to publish: of a project with a mark, those it implies are left out. */
  readonly apps: readonly RuntimeAppReport[];
  /** The projects covered that have apps, with how far the replica has acted on them. */
  readonly marks?: ProjectMarks;
}

/** Each project's `acted` mark (none yet: its reports list every app), and how the reports it implies name hosts. */
export interface ProjectMarks {
  readonly acted: ReadonlyMap<string, string | undefined>;
  readonly defaultHost: DefaultHostSettings;
}

/** The RuntimeReplica spec for a snapshot: readiness, whether its reports count, the status address (the reports go per project). */
export function replicaSpec(snapshot: ReplicaSnapshot): RuntimeReplicaSpec {
  return { ready: snapshot.ready, takesTraffic: snapshot.takesTraffic, ...(snapshot.statusURL ? { statusURL: snapshot.statusURL } : {}) };
}

/**
 * The RuntimeReplicaReport spec of each project the snapshot has reports about or a mark for, by project. A project
 * whose reports were cut by the bounds loses its mark too: an app left out would otherwise read as implied.
 */
export function projectReports(
  replica: string,
  apps: readonly RuntimeAppReport[],
  maxApps = MAX_REPORTED_APPS,
  maxBytes = MAX_REPORT_BYTES,
  marks?: ProjectMarks,
): Map<string, RuntimeReplicaReportSpec> {
  const byProject = Map.groupBy(apps, (report) => report.namespace);
  const projects = new Set([...byProject.keys(), ...(marks?.acted.keys() ?? [])]);
  return new Map(
    [...projects].map((project) => {
      const reports = bounded(byProject.get(project) ?? [], maxApps, maxBytes);
      const acted = marks?.acted.get(project);
      const marked = acted !== undefined && !reports.omittedApps ? { acted, defaultHost: { ...marks!.defaultHost } } : {};
      return [project, { replica, project, ...reports, ...marked }];
    }),
  );
}

/**
 * A project's reports, bounded so the object stays inside etcd's limit: kept in key order until `maxApps`
 * of them, or `maxBytes` of their JSON, are reached; the rest are counted in `omittedApps` (the RuntimeApp
 * controller then sees those apps as not acted on by this replica). A project's quota keeps it far below.
 */
function bounded(given: readonly RuntimeAppReport[], maxApps: number, maxBytes: number): Pick<RuntimeReplicaReportSpec, 'apps' | 'omittedApps'> {
  const apps: RuntimeReplicaReportSpec['apps'] = [];
  let bytes = 0;
  for (const one of given) {
    const report = { ...one, hosts: [...one.hosts], ...(one.failure ? { failure: { ...one.failure, message: clip(one.failure.message) } } : {}) };
    const size = Buffer.byteLength(JSON.stringify(report)) + 1;
    if (apps.length >= maxApps || bytes + size > maxBytes) break;
    bytes += size;
    apps.push(report);
  }
  const omitted = given.length - apps.length;
  return { apps, ...(omitted > 0 ? { omittedApps: omitted } : {}) };
}

/** The writes that take the reports from what was written (a fingerprint by project) to what is desired. */
export interface ReportChanges {
  readonly apply: ReadonlyArray<{ readonly project: string; readonly spec: RuntimeReplicaReportSpec; readonly fingerprint: string }>;
  readonly delete: readonly string[];
}

/**
 * What tells a project's report from another: a digest of its JSON. Kept per project written rather than the JSON
 * itself, which at 100,000 apps was some 24 MiB of the replica's heap (a project's report is tens of KB).
 */
export function reportFingerprint(spec: RuntimeReplicaReportSpec): string {
  return createHash('sha256').update(JSON.stringify(spec)).digest('base64url');
}

/**
 * Only the projects whose reports changed are written, and those with none left are deleted (pure). With
 * `considered`, `desired` holds those projects' reports only, and only they may be deleted.
 */
export function reportChanges(written: ReadonlyMap<string, string>, desired: ReadonlyMap<string, RuntimeReplicaReportSpec>, considered?: ReadonlySet<string>): ReportChanges {
  const apply: Array<ReportChanges['apply'][number]> = [];
  for (const [project, spec] of desired) {
    const fingerprint = reportFingerprint(spec);
    if (written.get(project) !== fingerprint) apply.push({ project, spec, fingerprint });
  }
  const gone = (project: string) => !desired.has(project) && (considered === undefined || considered.has(project));
  return { apply, delete: [...written.keys()].filter(gone) };
}

function clip(message: string): string {
  return message.length <= MAX_FAILURE_MESSAGE ? message : `${message.slice(0, MAX_FAILURE_MESSAGE - 1)}…`;
}
