// Tree entries: the entry a path names, and a directory's listing (bounded: a tree may hold any number of
// entries, a JSON answer may not). Read from the tree objects themselves through the copy's long-lived
// `git cat-file` (object-readers.ts), with `git ls-tree -l -z`'s answers; a tree object too large to hold is
// read by `ls-tree` instead, which streams.
import { Writable } from 'node:stream';
import { GitCommandError, runGit } from '../../../src/git/run-git.ts';
import { ObjectTooLargeError, type ObjectContents, type ObjectReader } from './object-reader.ts';
import { objectReaders } from './object-readers.ts';
import { findTreeEntry, oidBytesOf, treeEntries } from './tree-object.ts';

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

/** Tree objects read whole up to this size; a larger one (some 200,000 entries) is listed by `ls-tree`. */
export const MAX_TREE_OBJECT = 16 << 20;

/** The entry `path` (non-empty, normalised) names in `commit`'s tree, or undefined when none. */
export async function lookupEntry(dir: string, commit: string, path: string): Promise<TreeEntry | undefined> {
  const reader = objectReaders.for(dir);
  let tree = await readTree(reader, `${commit}^{tree}`);
  const segments = path.split('/');
  for (let i = 0; tree; i++) {
    // Names are compared as bytes, literally: `a*b` is a name, not a pattern.
    const found = findTreeEntry(tree.bytes, oidBytesOf(tree.oid), Buffer.from(segments[i] as string));
    if (!found) return undefined;
    if (i === segments.length - 1) {
      const size = found.type === 'blob' ? (await blobSizes(reader, [found.oid])).get(found.oid) : undefined;
      return { name: found.name.toString(), type: found.type, mode: found.mode, size: size ?? null, sha: found.oid };
    }
    if (found.type !== 'tree') return undefined;
    tree = await readTree(reader, found.oid);
  }
  return lookupEntryByProcess(dir, commit, path);
}

/** The object id of `commit`'s root tree. */
export async function rootTree(dir: string, commit: string): Promise<string> {
  const [tree] = await objectReaders.for(dir).info([`${commit}^{tree}`]);
  if (!tree) throw new GitCommandError('git cat-file', null, `found no tree for ${JSON.stringify(commit)}`);
  return tree.oid;
}

/**
 * The entries of tree `tree`, at most `limit` of them (in git's order: the first `limit` by name), then directories
 * first and by name.
 */
export async function listTree(dir: string, tree: string, limit: number): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
  const reader = objectReaders.for(dir);
  const object = await readTree(reader, tree);
  if (!object) return listTreeByProcess(dir, tree, limit);
  const raw = [...treeEntries(object.bytes, oidBytesOf(object.oid), limit + 1)];
  const truncated = raw.length > limit;
  if (truncated) raw.length = limit;
  const sizes = await blobSizes(
    reader,
    raw.filter((e) => e.type === 'blob').map((e) => e.oid),
  );
  const entries = raw.map((e): TreeEntry => ({ name: e.name.toString(), type: e.type, mode: e.mode, size: e.type === 'blob' ? (sizes.get(e.oid) ?? null) : null, sha: e.oid }));
  entries.sort(directoriesFirst);
  return { entries, truncated };
}

/** Tree `name` (a tree, or a commit: its tree) whole; undefined when it is too large to hold. Throws when missing. */
async function readTree(reader: ObjectReader, name: string): Promise<ObjectContents | undefined> {
  try {
    const tree = await reader.contents(`${name}^{tree}`, MAX_TREE_OBJECT);
    if (!tree) throw new GitCommandError('git cat-file', null, `found no tree for ${JSON.stringify(name)}`);
    return tree;
  } catch (error) {
    if (error instanceof ObjectTooLargeError) return undefined;
    throw error;
  }
}

/** The size of each of the blobs `oids`, in one round trip. Throws when one is missing (a broken repository). */
async function blobSizes(reader: ObjectReader, oids: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(oids)];
  const infos = await reader.info(unique);
  const sizes = new Map<string, number>();
  unique.forEach((oid, i) => {
    const info = infos[i];
    if (!info) throw new GitCommandError('git cat-file', null, `found no object ${oid}`);
    sizes.set(oid, info.size);
  });
  return sizes;
}

/** `lookupEntry` by `git ls-tree`, for trees too large to read whole. */
async function lookupEntryByProcess(dir: string, commit: string, path: string): Promise<TreeEntry | undefined> {
  // Literal pathspecs: `a*b` is a name, not a pattern. Without `-r` a directory comes back as its own entry.
  const { stdout } = await runGit(['-C', dir, 'ls-tree', '-l', '-z', '--full-tree', commit, '--', path], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  for (const record of splitRecords(stdout)) {
    const { path: found, ...entry } = parseLsTreeRecord(record);
    if (found === path) return entry;
  }
  return undefined;
}

/** `listTree` by `git ls-tree`, stopped once the limit is passed, so a huge directory costs no more than `limit`. */
async function listTreeByProcess(dir: string, tree: string, limit: number): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
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
