// A commit made from a batch of file changes with git's plumbing alone, no work tree: a temporary index starts
// as the parent's tree, the new blobs are hashed in, entries are replaced or removed, and the index is written
// as a tree and committed. Objects go wherever `env` sends them (the write's quarantine).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from '../../../src/git/run-git.ts';
import { checkChanges, decodeContent, directoriesAbove, identityEnv, InvalidChangeError, type FileChange, type Signature } from './changes.ts';

export interface BuildCommitRequest {
  /** The bare repository (GIT_DIR) unless `env` names another. */
  readonly dir: string;
  /** git's environment: GIT_OBJECT_DIRECTORY and alternates of a quarantine, so new objects land there. */
  readonly env?: Readonly<Record<string, string>>;
  /** The parent commit; null for a root commit. */
  readonly parent: string | null;
  readonly changes: readonly FileChange[];
  readonly message: string;
  readonly author: Signature;
  readonly committer: Signature;
  /** Commit even when the tree is the parent's. */
  readonly allowEmpty: boolean;
  /** Where the temporary index and blob files go. Default: the OS's. */
  readonly tmpDir?: string;
  /** The date of a signature without `when`. Default: now. */
  readonly now?: Date;
  /** Ends the git processes (the request's client left): nothing of the commit is kept. */
  readonly signal?: AbortSignal;
}

export interface BuiltCommit {
  readonly commit: string;
  readonly tree: string;
}

interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly oid: string;
}

/** Builds the commit; throws `InvalidChangeError` (400) for a change that cannot apply to the parent's tree. */
export async function buildCommit(request: BuildCommitRequest): Promise<BuiltCommit> {
  checkChanges(request.changes);
  const now = request.now ?? new Date();
  const identities = { ...identityEnv('AUTHOR', request.author, now), ...identityEnv('COMMITTER', request.committer, now) };
  if (request.message.includes('\0')) throw new InvalidChangeError('invalid_change', 'The commit message contains a NUL character.');
  const work = await mkdtemp(join(request.tmpDir ?? tmpdir(), 'commit-'));
  const env = { GIT_DIR: request.dir, ...request.env, GIT_INDEX_FILE: join(work, 'index'), GIT_LITERAL_PATHSPECS: '1' };
  const signal = request.signal ? { signal: request.signal } : {};
  const git = async (args: readonly string[], stdin?: string | Uint8Array, extra: Record<string, string> = {}) =>
    (await runGit(args, { env: { ...env, ...extra }, ...signal, ...(stdin === undefined ? {} : { stdin }) })).stdout.toString();
  try {
    const parentTree = request.parent === null ? null : (await git(['rev-parse', '--verify', '--end-of-options', `${request.parent}^{tree}`])).trim();
    await git(parentTree === null ? ['read-tree', '--empty'] : ['read-tree', parentTree]);
    const existing = parentTree === null ? new Map<string, TreeEntry>() : await lookUp(git, parentTree, queriedPaths(request.changes));
    checkAgainstParent(request.changes, existing);

    const upserts = request.changes.filter((c) => c.op === 'upsert');
    const blobs = await hashBlobs(git, work, upserts);
    const lines: string[] = [];
    const zero = '0'.repeat((parentTree ?? blobs[0] ?? '').length);
    for (const change of request.changes) {
      if (change.op === 'delete') lines.push(`0 ${zero}\t${change.path}`);
      else if (change.op === 'rename') {
        const source = existing.get(change.from) as TreeEntry;
        lines.push(`0 ${zero}\t${change.from}`, `${source.mode} ${source.oid}\t${change.to}`);
      }
    }
    upserts.forEach((change, i) => lines.push(`${change.mode} ${blobs[i]}\t${change.path}`));
    if (lines.length > 0) {
      const updated = await runGit(['update-index', '-z', '--index-info'], { env, ...signal, stdin: lines.map((l) => `${l}\0`).join('') });
      // A path git will not store it skips, exiting 0: the commit would silently lack it (a rename would lose the file).
      const ignored = /^Ignoring path (.*)$/m.exec(updated.stderr)?.[1];
      if (ignored !== undefined) throw new InvalidChangeError('invalid_path', `Path ${JSON.stringify(ignored)} is one git refuses to store.`);
    }
    const tree = (await git(['write-tree'])).trim();

    const unchanged = parentTree ?? (await git(['hash-object', '-t', 'tree', '--stdin'], '')).trim();
    if (tree === unchanged && !request.allowEmpty) throw new InvalidChangeError('empty_commit', 'The changes leave the tree as it was; set allow_empty to commit anyway.');
    const parents = request.parent === null ? [] : ['-p', request.parent];
    const commit = (await git(['commit-tree', tree, ...parents], request.message, identities)).trim();
    return { commit, tree };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

type Git = (args: readonly string[], stdin?: string | Uint8Array) => Promise<string>;

/** What must be looked up in the parent: sources of deletes and renames, targets and every directory above them. */
function queriedPaths(changes: readonly FileChange[]): string[] {
  const paths = new Set<string>();
  for (const change of changes) {
    if (change.op === 'delete') paths.add(change.path);
    const target = change.op === 'rename' ? change.to : change.op === 'upsert' ? change.path : undefined;
    if (change.op === 'rename') paths.add(change.from);
    if (target === undefined) continue;
    for (const dir of directoriesAbove(target)) paths.add(dir);
    paths.add(target);
  }
  return [...paths];
}

// Paths go on the command line: in chunks, well below the kernel's argument limits.
const ARGS_CHUNK_BYTES = 64 << 10;

/** The parent tree's entries at `paths` (those that exist), trees included (`ls-tree -t`). */
async function lookUp(git: Git, tree: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
  const found = new Map<string, TreeEntry>();
  let chunk: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const out = await git(['ls-tree', '-z', '-t', '--full-tree', tree, '--', ...chunk]);
    for (const record of out.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [mode = '', type = '', oid = ''] = record.slice(0, tab).split(' ');
      found.set(record.slice(tab + 1), { mode, type, oid });
    }
    chunk = [];
    bytes = 0;
  };
  for (const path of paths) {
    chunk.push(path);
    bytes += Buffer.byteLength(path) + 1;
    if (bytes >= ARGS_CHUNK_BYTES) await flush();
  }
  await flush();
  return found;
}

/** A change that does not fit the parent's tree (a missing file, a file where a directory must be); `path` is where. */
export class TreeConflictError extends InvalidChangeError {
  readonly path: string;
  constructor(path: string, detail: string) {
    super('invalid_change', detail);
    this.path = path;
  }
}

function checkAgainstParent(changes: readonly FileChange[], existing: ReadonlyMap<string, TreeEntry>): void {
  const requireFile = (path: string, op: string) => {
    const entry = existing.get(path);
    if (!entry) throw new TreeConflictError(path, `Cannot ${op} ${JSON.stringify(path)}: no such file in the branch.`);
    if (entry.type === 'tree') throw new TreeConflictError(path, `Cannot ${op} ${JSON.stringify(path)}: it is a directory; name its files.`);
  };
  for (const change of changes) {
    if (change.op === 'delete') requireFile(change.path, 'delete');
    if (change.op === 'rename') requireFile(change.from, 'rename');
    const target = change.op === 'rename' ? change.to : change.op === 'upsert' ? change.path : undefined;
    if (target === undefined) continue;
    for (const dir of directoriesAbove(target)) {
      const entry = existing.get(dir);
      if (entry && entry.type !== 'tree') throw new TreeConflictError(target, `Cannot write ${JSON.stringify(target)}: ${JSON.stringify(dir)} is a file in the branch.`);
    }
    const entry = existing.get(target);
    if (entry?.type === 'tree') throw new TreeConflictError(target, `Cannot write ${JSON.stringify(target)}: it is a directory in the branch.`);
    if (entry && change.op === 'rename') throw new TreeConflictError(target, `Cannot rename ${JSON.stringify(change.from)} to ${JSON.stringify(target)}: it exists; delete it first.`);
  }
}

/** Writes the upserts' contents as blobs (one `hash-object` for all); answers their oids in order. */
async function hashBlobs(git: Git, work: string, upserts: readonly Extract<FileChange, { op: 'upsert' }>[]): Promise<string[]> {
  if (upserts.length === 0) return [];
  const files: string[] = [];
  for (const [i, change] of upserts.entries()) {
    const file = join(work, `blob-${i}`);
    await writeFile(file, decodeContent(change.path, change.content));
    files.push(file);
  }
  const out = await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], files.map((f) => `${f}\n`).join(''));
  const oids = out.split('\n').filter(Boolean);
  if (oids.length !== upserts.length) throw new Error(`git hash-object answered ${oids.length} oids for ${upserts.length} files`);
  return oids;
}
