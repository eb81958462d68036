// What waits in a marked repository, read from its head: the same thresholds the writers mark by.
import { RepoNotFoundError, type RepoStore } from '../../src/repo-store/index.ts';
import { dueNow, entriesSinceCheckpoint } from '../../src/repo-store/pending.ts';
import { seqToString } from '../../src/repo-store/seq.ts';
import type { PendingRow } from './format.ts';

export async function pendingWork(repos: RepoStore, repo: string): Promise<Pick<PendingRow, 'head_seq' | 'entries_since_checkpoint' | 'packs' | 'due'>> {
  try {
    const head = await repos.readHead(repo);
    const due = dueNow(head);
    return {
      head_seq: seqToString(head.seq),
      entries_since_checkpoint: entriesSinceCheckpoint(head),
      packs: head.packs.length,
      due: [...(due.checkpoint ? ['checkpoint'] : []), ...(due.compaction ? ['compaction'] : [])],
    };
  } catch (err) {
    if (err instanceof RepoNotFoundError) return { head_seq: null, entries_since_checkpoint: 0, packs: 0, due: [] };
    throw err;
  }
}
