// Where a target that starts at a time begins: the first log entry written at or after it. A per-repository
// webhook receives what was published since it was created, not the repository's whole kept history, and not
// only what came after the bridge first saw it (which could miss a push made right after `kubectl apply`).
import type { RepoHead } from '../../src/repo-store/head-cache.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';

/**
 * The seq of the first kept entry whose time (`at`, the writer's clock) is at or after `since`, or the head's
 * seq plus one when there is none. A binary search over the kept log: entries are published in seq order, so
 * their times grow with it (up to the writers' clock skew, which is what this can be off by).
 */
export async function firstEntryAtOrAfter(repos: Pick<RepoStore, 'listLog'>, repo: string, head: Pick<RepoHead, 'seq' | 'logStart'>, since: Date): Promise<number> {
  let low = Math.max(1, head.logStart);
  let high = head.seq + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const entry = (await repos.listLog(repo, middle, { limit: 1 })).entries[0];
    // An entry retired meanwhile is older than anything kept: the start is after it.
    if (entry !== undefined && entry.seq === middle && Date.parse(entry.at) >= since.getTime()) high = middle;
    else low = middle + 1;
  }
  return low;
}
