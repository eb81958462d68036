// What waits in a marked repository, read from its head: the same thresholds the writers mark by.
import { RepoNotFoundError, type RepoStore } from '../../src/repo-store/index.ts';
import { CHECKPOINT_EVERY, COMPACT_EVERY } from '../../src/repo-store/pending.ts';
import { seqToString } from '../../src/repo-store/seq.ts';
import type { PendingRow } from './format.ts';

export async function pendingWork(repos: RepoStore, repo: string): Promise<Pick<PendingRow, 'head_seq' | 'entries_since_checkpoint' | 'packs' | 'due'>> {
  try {
    const head = await repos.readHead(repo);
    const since = head.seq - (head.checkpoint?.seq ?? 0);
    const due = [...(since >= CHECKPOINT_EVERY ? ['checkpoint'] : []), ...(head.packs.length >= COMPACT_EVERY ? ['compaction'] : [])];
    return { head_seq: seqToString(head.seq), entries_since_checkpoint: since, packs: head.packs.length, due };
  } catch (err) {
    if (err instanceof RepoNotFoundError) return { head_seq: null, entries_since_checkpoint: 0, packs: 0, due: [] };
    throw err;
  }
}
