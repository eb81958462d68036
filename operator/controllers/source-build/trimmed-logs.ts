// Which finished builds keep only the end of their log: those of an app past its FULL_LOGS_PER_APP newest that ran
// (and its newest that succeeded), newest by end, so a build's log is whole for as long as it is among those a user most likely reads (the one that
// just ended among them, however long it was queued), and bounded after. A build cancelled before it started (a push
// superseded in the queue) logged a line or two: it takes no place among them and is left as it is.
import type { SourceBuild } from '../../../src/apis/v1alpha1/source-build.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { isFinished } from '../../../src/platform/app-sources/source-view.ts';
import { FULL_LOGS_PER_APP } from '../../../src/platform/source-builds/log-retention.ts';

/** The finished builds of `app` (among `builds`, one namespace's) whose logs are to be trimmed. */
export function buildsWithTrimmedLogs(builds: readonly SourceBuild[], app: string): SourceBuild[] {
  const ran = builds.filter((b) => b.spec.app === app && isFinished(b.status?.state) && b.status?.startedAt !== undefined && !b.metadata?.deletionTimestamp).sort((a, b) => newer(b, a));
  // The newest that succeeded keeps its log too, past any number of pushes cancelled while they ran: it is most
  // likely the one serving (review-174 R4).
  const serving = ran.find((b) => b.status?.state === 'Succeeded');
  return ran.slice(FULL_LOGS_PER_APP).filter((b) => b !== serving);
}

/** By end, then by push (creation), then by name: the same order whatever the informer's. */
function newer(a: SourceBuild, b: SourceBuild): number {
  const at = (x: string | undefined) => Date.parse(x ?? '') || 0;
  return at(a.status?.finishedAt) - at(b.status?.finishedAt) || at(a.metadata?.creationTimestamp) - at(b.metadata?.creationTimestamp) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/**
 * Whether a build's log was trimmed: its status's `logTrimmedAt`, or this process's memory where the apiserver
 * dropped that field (a SourceBuild CRD older than the operator: docs/operating.md has the CRDs applied first). Without
 * the memory every past build of such an app would be trimmed and written again at each reconcile, each enqueueing
 * the others, for ever.
 */
export class TrimmedLogs {
  readonly #uids = new Set<string>();
  readonly #log: Logger;
  #warned = false;

  constructor(log: Logger) {
    this.#log = log;
  }

  has(build: SourceBuild): boolean {
    return build.status?.logTrimmedAt !== undefined || this.#uids.has(build.metadata?.uid ?? '');
  }

  /** `patched`: the apiserver's answer to the status write that recorded the trim. */
  recorded(patched: SourceBuild): void {
    if (patched.status?.logTrimmedAt !== undefined) return;
    this.#uids.add(patched.metadata?.uid ?? '');
    if (this.#warned) return;
    this.#warned = true;
    this.#log.warn(
      'the SourceBuild CRD is older than this operator: the apiserver dropped status.logTrimmedAt, so trimmed logs are remembered in memory until the next restart; apply crds/ from this release',
    );
  }
}
