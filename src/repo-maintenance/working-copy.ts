// The maintainer's working copies: a bare repository per repository it compacts or checks, kept between
// passes so each pass fetches only the packs published since the last one. Never served from; deleted after
// a failed or interrupted compaction (git may have rewritten its packs half-way) and when idle for a day.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncBareRepo, type SyncBareRepoOptions } from '../git/bare-repo.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { parseRepoPath } from '../repo-store/repo-path.ts';
import type { MaintenanceContext } from './context.ts';

export function workingCopyDir(ctx: MaintenanceContext, repo: string): string {
  const path = parseRepoPath(repo);
  return join(ctx.workDir, 'repos', path.owner, `${path.name}.git`);
}

/**
 * The working copy of `repo`, brought to `head` (packs fetched from the bucket as needed). With
 * `onUnavailable`, a live pack that cannot be fetched is reported and left out instead of failing the sync.
 */
export async function syncWorkingCopy(ctx: MaintenanceContext, repo: string, head: RepoHead, options: Pick<SyncBareRepoOptions, 'onUnavailable'> = {}): Promise<string> {
  const dir = workingCopyDir(ctx, repo);
  await syncBareRepo({ repos: ctx.repos, repo, head, state: head, dir, ...options });
  return dir;
}

export async function dropWorkingCopy(ctx: MaintenanceContext, repo: string): Promise<void> {
  await rm(workingCopyDir(ctx, repo), { recursive: true, force: true });
}

/** Deletes working copies not used for `idleMs` (their directory's mtime moves with every sync). */
export async function dropIdleWorkingCopies(ctx: Pick<MaintenanceContext, 'workDir' | 'now'>, idleMs: number): Promise<void> {
  const root = join(ctx.workDir, 'repos');
  for (const owner of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, owner)).catch(() => [] as string[])) {
      const dir = join(root, owner, name);
      const info = await stat(join(dir, 'packed-refs')).catch(() => undefined);
      if (!info || ctx.now().getTime() - info.mtimeMs > idleMs) await rm(dir, { recursive: true, force: true });
    }
  }
}
