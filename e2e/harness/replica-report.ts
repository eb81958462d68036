import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeReplicaReport } from '../../src/apis/v1alpha1/runtime-replica-report.ts';
import { compareResourceVersions } from '../../src/kube/resource-version.ts';
import { impliedReport } from '../../src/runtime-contract/implied-report.ts';
import type { RuntimeAppReport } from '../../src/runtime-contract/report.ts';

/**
 * A replica's report of `app` as the operator reads it: listed in the replica's RuntimeReplicaReport for the app's
 * project, or, left out, the one its `acted` mark implies once the mark has passed `since` (by default the version
 * of `app` as read: the replica has acted on everything the caller has seen).
 */
export function reportOf(report: RuntimeReplicaReport | undefined, app: RuntimeApp | undefined, since = app?.metadata?.resourceVersion): RuntimeAppReport | undefined {
  if (!report || !app) return undefined;
  const listed = report.spec.apps.find((a) => a.namespace === app.metadata?.namespace && a.app === app.metadata?.name);
  if (listed) return listed;
  const { acted, defaultHost } = report.spec;
  if (acted === undefined || !defaultHost || compareResourceVersions(since, acted) > 0) return undefined;
  return impliedReport(app, defaultHost);
}
