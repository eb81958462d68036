// The files a diff touches, with their status and line counts, from one `git diff-tree -z --raw --numstat` run:
// git writes every raw record (status, paths) and then every numstat record (counts, paths) for the same files
// in the same order, NUL-separated, so any byte may appear in a path.
import { runGitCapped } from './capped-output.ts';

export const FILE_STATUSES = ['added', 'removed', 'modified', 'renamed', 'copied', 'type_changed', 'unmerged'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/** One file of a diff. Binary files have null line counts; `previous_path` is set for renames and copies. */
export interface FileChange {
  readonly path: string;
  readonly status: FileStatus;
  readonly additions: number | null;
  readonly deletions: number | null;
  readonly previous_path?: string;
}

const STATUS: Readonly<Record<string, FileStatus>> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'type_changed', U: 'unmerged' };

/**
 * The files in `git diff-tree -z --raw --numstat` output, in git's order. A numstat record missing (output
 * stopped at a byte budget) leaves that file's counts null; a raw record cut short is left out.
 */
export function parseDiffFiles(output: Buffer | string): FileChange[] {
  const tokens = output.toString('utf8').split('\0');
  tokens.pop(); // what follows the last NUL is unfinished
  const files: { path: string; status: FileStatus; additions: number | null; deletions: number | null; previous_path?: string }[] = [];
  let i = 0;
  // Raw records: ":<mode> <mode> <oid> <oid> <status>" then one path, or two for renames and copies.
  while (i < tokens.length && tokens[i]?.startsWith(':')) {
    const letter = tokens[i]?.split(' ')[4]?.charAt(0) ?? '';
    const status = STATUS[letter] ?? 'modified';
    const two = letter === 'R' || letter === 'C';
    if (i + (two ? 2 : 1) >= tokens.length) break;
    if (two) files.push({ path: tokens[i + 2] ?? '', status, additions: null, deletions: null, previous_path: tokens[i + 1] ?? '' });
    else files.push({ path: tokens[i + 1] ?? '', status, additions: null, deletions: null });
    i += two ? 3 : 2;
  }
  // Numstat records: "<added>\t<deleted>\t<path>", or "<added>\t<deleted>\t" then two paths for a rename; "-"
  // counts for a binary file.
  for (const file of files) {
    const counts = tokens[i];
    if (counts === undefined) break;
    const [added = '', deleted = '', path = ''] = counts.split('\t');
    const renamed = path === '' && counts.endsWith('\t');
    if (renamed && i + 2 >= tokens.length) break;
    file.additions = added === '-' ? null : Number(added);
    file.deletions = deleted === '-' ? null : Number(deleted);
    i += renamed ? 3 : 1;
  }
  return files;
}

export interface DiffFilesOptions {
  /** At most this many files are answered; `cut` says there were more. */
  readonly maxFiles: number;
  /** Output budget; past it files keep null counts or are left out (and `cut` is set). Default 8 MiB. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal | undefined;
}

/** The files changed from tree-ish `from` to `to` (renames found, as `git diff -M` does). */
export async function diffFiles(dir: string, from: string, to: string, options: DiffFilesOptions): Promise<{ files: FileChange[]; cut: boolean }> {
  const { stdout, truncated } = await runGitCapped(['-C', dir, 'diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--end-of-options', from, to], {
    maxBytes: options.maxBytes ?? 8 << 20,
    signal: options.signal,
  });
  const files = parseDiffFiles(stdout);
  return { files: files.slice(0, options.maxFiles), cut: truncated || files.length > options.maxFiles };
}
