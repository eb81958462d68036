// How two commits relate: their merge base and how many commits each has that the other lacks.
import { runGit } from '../../../src/git/run-git.ts';

/** The best common ancestor of `a` and `b`, or null for unrelated histories. */
export async function mergeBase(dir: string, a: string, b: string, signal?: AbortSignal): Promise<string | null> {
  const result = await runGit(['-C', dir, 'merge-base', '--end-of-options', a, b], { okCodes: [0, 1], signal, maxStdoutBytes: 1024 });
  return result.code === 0 ? result.stdout.toString().trim() : null;
}

/** Commits reachable from `head` and not `base` (`ahead`), and the other way round (`behind`). */
export async function aheadBehind(dir: string, base: string, head: string, signal?: AbortSignal): Promise<{ ahead: number; behind: number }> {
  const result = await runGit(['-C', dir, 'rev-list', '--left-right', '--count', '--end-of-options', `${base}...${head}`], { signal, maxStdoutBytes: 1024 });
  const [behind = NaN, ahead = NaN] = result.stdout.toString().trim().split(/\s+/).map(Number);
  if (!Number.isInteger(ahead) || !Number.isInteger(behind)) throw new Error(`unexpected rev-list --count output: ${result.stdout.toString().slice(0, 100)}`);
  return { ahead, behind };
}

/** The empty tree's id in this repository's object format: what a root commit or unrelated history diffs from. */
export async function emptyTree(dir: string, signal?: AbortSignal): Promise<string> {
  const result = await runGit(['-C', dir, 'hash-object', '-t', 'tree', '--stdin'], { stdin: '', signal, maxStdoutBytes: 1024 });
  return result.stdout.toString().trim();
}
