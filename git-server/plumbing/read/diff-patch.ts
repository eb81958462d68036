// The unified diff between two tree-ishes, as text, up to a byte budget.
import { runGitCapped } from './capped-output.ts';

/** Patches beyond this are cut (the spec's inline bound for blobs, applied to diffs too). */
export const PATCH_MAX_BYTES = 2 << 20;

/**
 * `git diff-tree -p -M` from `from` to `to`. When longer than `maxBytes` the patch is cut at the last whole line
 * within the budget and `truncated` is set. Binary files show as git's "Binary files … differ" line.
 */
export async function diffPatch(dir: string, from: string, to: string, options: { maxBytes?: number; signal?: AbortSignal | undefined } = {}): Promise<{ patch: string; truncated: boolean }> {
  const { stdout, truncated } = await runGitCapped(['-C', dir, 'diff-tree', '-r', '-p', '-M', '--no-color', '--end-of-options', from, to], {
    maxBytes: options.maxBytes ?? PATCH_MAX_BYTES,
    signal: options.signal,
  });
  if (!truncated) return { patch: stdout.toString('utf8'), truncated };
  const lastLine = stdout.lastIndexOf(0x0a);
  return { patch: stdout.subarray(0, lastLine + 1).toString('utf8'), truncated };
}
