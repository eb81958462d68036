import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeReplicaReport } from '../../src/apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../../src/apis/v1alpha1/runtime-replica.ts';
import { compareResourceVersions } from '../../src/kube/resource-version.ts';
import { impliedReport } from '../../src/runtime-contract/implied-report.ts';
import type { RuntimeAppReport } from '../../src/runtime-contract/report.ts';

/**
 * A replica's report of `app` as the operator reads it: listed in the replica's RuntimeReplicaReport for the app's
 * project, or, left out, the one a mark implies (the later of the report's `acted` and the replica's own, its
 * RuntimeReplica's: a project with nothing to say has no report) once it has passed `since` (by default the version
 * of `app` as read: the replica has acted on everything the caller has seen).
 */
export function reportOf(report: RuntimeReplicaReport | undefined, app: RuntimeApp | undefined, since = app?.metadata?.resourceVersion, replica?: RuntimeReplica): RuntimeAppReport | undefined {
  if (!app) return undefined;
  const listed = report?.spec.apps.find((a) => a.namespace === app.metadata?.namespace && a.app === app.metadata?.name);
  if (listed) return listed;
  const marks = [report?.spec, replica?.spec].flatMap((spec) => (spec?.acted !== undefined && spec.defaultHost ? [{ acted: spec.acted, defaultHost: spec.defaultHost }] : []));
  const mark = marks.sort((a, b) => compareResourceVersions(b.acted, a.acted))[0];
  if (!mark || compareResourceVersions(since, mark.acted) > 0) return undefined;
  return impliedReport(app, mark.defaultHost);
}

/** The later of a replica's marks (its project report's and its RuntimeReplica's), if it has one. */
export function markOf(report: RuntimeReplicaReport | undefined, replica: RuntimeReplica | undefined): string | undefined {
  const marks = [report?.spec.acted, replica?.spec.acted].filter((m): m is string => m !== undefined);
  return marks.sort((a, b) => compareResourceVersions(b, a))[0];
}
