// Which finished builds keep only the end of their log: those of an app past its newest FULL_LOGS_PER_APP, newest
// by push as the AppSource controller's pruning counts them, so a build's log is whole for as long as it is among
// the builds a user is most likely to read, and bounded after.
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import { isFinished } from '../../../src/platform/app-sources/source-view.ts';
import { FULL_LOGS_PER_APP } from '../../../src/platform/source-builds/log-retention.ts';

/** The finished builds of `app` (among `builds`, one namespace's) whose logs are to be trimmed. */
export function buildsWithTrimmedLogs(builds: readonly SourceBuild[], app: string): SourceBuild[] {
  return builds
    .filter((b) => b.spec.app === app && isFinished(b.status?.state) && !b.metadata?.deletionTimestamp)
    .sort((a, b) => newer(b, a))
    .slice(FULL_LOGS_PER_APP);
}

/** By push (creation), then by end, then by name: the same order whatever the informer's. */
function newer(a: SourceBuild, b: SourceBuild): number {
  const at = (x: string | undefined) => Date.parse(x ?? '') || 0;
  return at(a.metadata?.creationTimestamp) - at(b.metadata?.creationTimestamp) || at(a.status?.finishedAt) - at(b.status?.finishedAt) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}
