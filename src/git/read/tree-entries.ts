// Tree entries through `git ls-tree -l -z`: the entry a path names, and a directory's listing (bounded: a tree
// may hold any number of entries, a JSON answer may not).
import { Writable } from 'node:stream';
import { runGit } from '../run-git.ts';

export type EntryType = 'tree' | 'blob' | 'commit';

export interface TreeEntry {
  /** The last path segment. */
  readonly name: string;
  /** `tree` (a directory), `blob` (a file or symlink) or `commit` (a submodule). */
  readonly type: EntryType;
  /** The octal mode as git writes it: `040000`, `100644`, `100755`, `120000`, `160000`. */
  readonly mode: string;
  /** Bytes of a blob; null for trees and submodules. */
  readonly size: number | null;
  readonly sha: string;
}

/** One `ls-tree -l -z` record: `<mode> SP <type> SP <oid> SP+ <size> TAB <path>`; the path as given back. */
export function parseLsTreeRecord(record: Buffer): TreeEntry & { readonly path: string } {
  const tab = record.indexOf(0x09);
  const [mode = '', type = '', sha = '', size = '-'] = record.subarray(0, tab).toString().trim().split(/\s+/);
  const path = record.subarray(tab + 1).toString();
  return { name: path.slice(path.lastIndexOf('/') + 1), type: type as EntryType, mode, size: size === '-' ? null : Number(size), sha, path };
}

/** The entry `path` (non-empty, normalised) names in `commit`'s tree, or undefined when none. */
export async function lookupEntry(dir: string, commit: string, path: string): Promise<TreeEntry | undefined> {
  // Literal pathspecs: `a*b` is a name, not a pattern. Without `-r` a directory comes back as its own entry.
  const { stdout } = await runGit(['-C', dir, 'ls-tree', '-l', '-z', '--full-tree', commit, '--', path], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  for (const record of splitRecords(stdout)) {
    const { path: found, ...entry } = parseLsTreeRecord(record);
    if (found === path) return entry;
  }
  return undefined;
}

/** The object id of `commit`'s root tree. */
export async function rootTree(dir: string, commit: string): Promise<string> {
  return (await runGit(['-C', dir, 'rev-parse', '--verify', `${commit}^{tree}`])).stdout.toString().trim();
}

/**
 * The entries of tree `tree`, at most `limit` of them (in git's order: the first `limit` by name), then directories
 * first and by name. git is stopped once the limit is passed, so a huge directory costs no more than `limit`.
 */
export async function listTree(dir: string, tree: string, limit: number): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
  const entries: TreeEntry[] = [];
  let truncated = false;
  let pending: Buffer = Buffer.alloc(0);
  const stop = new AbortController();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (truncated) return done();
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let end: number;
      while ((end = pending.indexOf(0)) !== -1) {
        const record = pending.subarray(0, end);
        pending = pending.subarray(end + 1);
        if (entries.length === limit) {
          truncated = true;
          stop.abort();
          break;
        }
        const { path: _path, ...entry } = parseLsTreeRecord(record);
        entries.push(entry);
      }
      done();
    },
  });
  try {
    await runGit(['-C', dir, 'ls-tree', '-l', '-z', tree], { stdout: sink, signal: stop.signal });
  } catch (error) {
    if (!truncated) throw error;
  }
  entries.sort(directoriesFirst);
  return { entries, truncated };
}

function directoriesFirst(a: TreeEntry, b: TreeEntry): number {
  if ((a.type === 'tree') !== (b.type === 'tree')) return a.type === 'tree' ? -1 : 1;
  return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}

function* splitRecords(stdout: Buffer): Generator<Buffer> {
  let start = 0;
  for (let end = stdout.indexOf(0); end !== -1; end = stdout.indexOf(0, start)) {
    yield stdout.subarray(start, end);
    start = end + 1;
  }
}
