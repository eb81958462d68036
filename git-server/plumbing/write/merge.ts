// Merging one commit into another with git's own plumbing, no work tree: `merge-tree --write-tree` computes the
// merged tree (and the conflicted paths), `commit-tree` records it. New objects go wherever `env` points git's
// object directory (a write's quarantine); nothing here moves a ref.
import { runGit } from '../../../src/git/run-git.ts';
import { identityEnv, type Identity } from './git-ident.ts';

export type MergeStrategy = 'merge' | 'squash' | 'fast-forward-only';

export const MERGE_STRATEGIES: readonly MergeStrategy[] = ['merge', 'squash', 'fast-forward-only'];

export interface MergeRequest {
  /** The bare repository (`GIT_DIR`, when `env` does not set it). */
  readonly dir: string;
  /** git's environment: the quarantine's object directory and alternates. */
  readonly env: Readonly<Record<string, string>>;
  /** The commit of the branch merged into. */
  readonly base: string;
  /** The commit merged. */
  readonly head: string;
  readonly strategy: MergeStrategy;
  /** The new commit's message (merge and squash). */
  readonly message: string;
  readonly committer: Identity;
  readonly author?: Identity;
  readonly signal?: AbortSignal;
}

export type MergeOutcome =
  /** `head` is already in `base`'s history (or is `base`): nothing to do. */
  | { readonly kind: 'already_merged' }
  /** `base` is in `head`'s history and the strategy is fast-forward-only: the branch moves to `head`. */
  | { readonly kind: 'fast_forward'; readonly oid: string }
  /** A new commit: two parents (merge) or one (squash). */
  | { readonly kind: 'committed'; readonly oid: string; readonly tree: string; readonly parents: readonly string[] }
  /** fast-forward-only, and `base` is not in `head`'s history. */
  | { readonly kind: 'not_fast_forward' }
  /** The trees conflict: the paths that do, sorted. */
  | { readonly kind: 'conflict'; readonly conflicts: readonly string[] }
  /** `base` and `head` share no history: a merge would join two unrelated projects. */
  | { readonly kind: 'unrelated_histories' };

/** Computes the merge of `head` into `base` and writes its commit, if there is one (see `MergeOutcome`). */
export async function computeMerge(request: MergeRequest): Promise<MergeOutcome> {
  const { base, head, strategy } = request;
  if (await isAncestor(request, head, base)) return { kind: 'already_merged' };
  if (strategy === 'fast-forward-only') {
    return (await isAncestor(request, base, head)) ? { kind: 'fast_forward', oid: head } : { kind: 'not_fast_forward' };
  }
  const merged = await mergeTree(request);
  if (merged.kind !== 'clean') return merged;
  const parents = strategy === 'merge' ? [base, head] : [base];
  const oid = await commitTree(request, merged.tree, parents);
  return { kind: 'committed', oid, tree: merged.tree, parents };
}

async function git(request: MergeRequest, args: readonly string[], options: { okCodes?: readonly number[]; stdin?: string; env?: Record<string, string> } = {}) {
  return runGit(args, {
    cwd: request.dir,
    env: { GIT_DIR: request.dir, ...request.env, ...options.env },
    maxStdoutBytes: 16 << 20,
    ...(options.okCodes ? { okCodes: options.okCodes } : {}),
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  });
}

async function isAncestor(request: MergeRequest, ancestor: string, of: string): Promise<boolean> {
  const result = await git(request, ['merge-base', '--is-ancestor', '--end-of-options', ancestor, of], { okCodes: [0, 1] });
  return result.code === 0;
}

/**
 * Inexact rename detection compares every deleted file with every added one: past this many squared pairs, a merge
 * finds exact renames only (the default of git's `diff.renameLimit`; its merges default to 7,000). 2,000
 * modified-and-renamed files cost 6 s of a core per merge (found in review); 800 cost 1 s, 100 take 30 ms. A rename
 * it no longer finds is a modify/delete conflict (409), never a wrong tree.
 */
export const MERGE_RENAME_LIMIT = 1000;

type TreeMerge = { readonly kind: 'clean'; readonly tree: string } | { readonly kind: 'conflict'; readonly conflicts: readonly string[] } | { readonly kind: 'unrelated_histories' };

async function mergeTree(request: MergeRequest): Promise<TreeMerge> {
  // Without a merge base git 2.39 refuses (exit 128) unless told otherwise; say so before asking.
  const bases = await git(request, ['merge-base', '--end-of-options', request.base, request.head], { okCodes: [0, 1] });
  if (bases.code === 1) return { kind: 'unrelated_histories' };
  // Exit 1 is a conflicted merge: the tree (with conflict markers) is still written, and the paths follow it.
  const result = await git(
    request,
    ['-c', `merge.renameLimit=${MERGE_RENAME_LIMIT}`, 'merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', '--end-of-options', request.base, request.head],
    { okCodes: [0, 1] },
  );
  const { tree, conflicts } = parseMergeTree(result.stdout.toString('utf8'));
  if (result.code === 1) return { kind: 'conflict', conflicts };
  return { kind: 'clean', tree };
}

/**
 * `merge-tree --write-tree --name-only --no-messages -z` output: the tree's oid, then each conflicted path once,
 * every one NUL-terminated (an empty field ends the list where messages would start).
 */
export function parseMergeTree(output: string): { tree: string; conflicts: string[] } {
  const fields = output.split('\0');
  const tree = (fields[0] ?? '').trim();
  const conflicts: string[] = [];
  for (const path of fields.slice(1)) {
    if (path === '') break;
    conflicts.push(path);
  }
  return { tree, conflicts: [...new Set(conflicts)].sort() };
}

async function commitTree(request: MergeRequest, tree: string, parents: readonly string[]): Promise<string> {
  const args = ['commit-tree', ...parents.flatMap((p) => ['-p', p]), tree];
  const message = request.message.endsWith('\n') ? request.message : `${request.message}\n`;
  const result = await git(request, args, { stdin: message, env: identityEnv(request.committer, request.author) });
  return result.stdout.toString().trim();
}
