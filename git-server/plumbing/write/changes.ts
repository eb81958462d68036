// The checks on a commit request that need no repository: paths git would refuse (or that fsck flags), changes
// that overlap, identities and dates git cannot record. Each failure is a 400 naming what is wrong.
import { PublicError } from '../../../src/errors.ts';
import { gitDate as identityDate, InvalidIdentityError } from './git-ident.ts';

/** A file change of a commit request: `content` is standard base64. */
export type FileChange =
  | { readonly op: 'upsert'; readonly path: string; readonly content: string; readonly mode: FileMode }
  | { readonly op: 'delete'; readonly path: string }
  | { readonly op: 'rename'; readonly from: string; readonly to: string };

export type FileMode = '100644' | '100755' | '120000';

/** Who and when: `when` is RFC 3339 with an explicit offset or `Z`; without it, now (UTC). */
export interface Signature {
  readonly name: string;
  readonly email: string;
  readonly when?: string;
}

/** A change git cannot make as asked (a bad path, overlapping paths, a missing file, nothing to commit). */
export class InvalidChangeError extends PublicError {
  override readonly name = 'InvalidChangeError';
  readonly code: string;
  constructor(code: 'invalid_path' | 'invalid_change' | 'empty_commit' | 'invalid_signature', detail: string) {
    super(400, detail);
    this.code = code;
  }
}

const MAX_PATH_BYTES = 4096;
/**
 * Directories a path may be under. A commit looks every directory above each path up in its parent and git builds a
 * tree for each: 40 paths 2,000 directories deep (a 162 KiB request) held cw-git's thread for 6.7 minutes and left
 * 80,000 trees in the repository (review-177 F3). Real trees are a few dozen deep.
 */
export const MAX_PATH_DEPTH = 128;
/** Distinct directories one commit's paths may be under, together (each is looked up, and may become a tree). */
export const MAX_COMMIT_DIRECTORIES = 2_000;
// The names git refuses for a path segment, as its index and fsck do (core.protectNTFS, on by default, and the
// HFS rules fsck always applies): `.git` in any case, with trailing dots or spaces or an NTFS stream (`.git::$DATA`),
// its NTFS short name `git~1`, and `.git` spelled with the Unicode characters HFS+ ignores (`.g\u200cit`). git's
// update-index skips such a path without failing, so they are refused here, by name.
const NTFS_GIT_DIR = /^(?:\.git|git~1)[. ]*(?::.*)?$/i;
// `.gitmodules` and its NTFS short names (`gitmod~1`, `gi7eba~1`): never a symbolic link (git's fsck refuses one).
const NTFS_GITMODULES = /^(?:\.gitmodules|gitmod~[1-4]|gi7eba~[1-4])[. ]*(?::.*)?$/i;
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** `segment` as HFS+ compares names: case folded, without the characters it ignores. */
function hfsName(segment: string): string {
  return segment.replace(HFS_IGNORED, '').toLowerCase();
}

/** Whether a path's last segment is one git takes for `.gitmodules` (so a symbolic link there is refused). */
export function isGitmodules(path: string): boolean {
  const name = path.split('/').at(-1) ?? '';
  return NTFS_GITMODULES.test(name) || hfsName(name) === '.gitmodules';
}

/** Throws unless `path` is a relative, normalized path git stores as is (no `.`/`..`/`.git`/empty segments). */
export function checkPath(path: string): void {
  const bad = (why: string) => new InvalidChangeError('invalid_path', `Path ${JSON.stringify(path)} ${why}.`);
  if (path === '') throw bad('is empty');
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw bad(`is longer than ${MAX_PATH_BYTES} bytes`);
  if (path.includes('\0')) throw bad('contains a NUL character');
  if (path.startsWith('/')) throw bad('is absolute');
  const segments = path.split('/');
  if (segments.length > MAX_PATH_DEPTH + 1) throw bad(`is under ${segments.length - 1} directories; at most ${MAX_PATH_DEPTH} are taken`);
  for (const segment of segments) {
    if (segment === '') throw bad('has an empty segment');
    if (segment === '.' || segment === '..') throw bad(`has a "${segment}" segment`);
    if (NTFS_GIT_DIR.test(segment) || hfsName(segment) === '.git') throw bad('has a segment git takes for ".git"');
  }
}

/** Every path the changes touch, each with what touches it, in request order. */
export function touchedPaths(changes: readonly FileChange[]): string[] {
  return changes.flatMap((c) => (c.op === 'rename' ? [c.from, c.to] : [c.path]));
}

/**
 * Throws unless every path is valid and no path is touched twice or lies under another touched path (`a` and
 * `a/b`): the outcome of such a request would depend on the order of its changes.
 */
export function checkChanges(changes: readonly FileChange[]): void {
  const paths = touchedPaths(changes);
  for (const path of paths) checkPath(path);
  const directories = new Set(paths.flatMap(directoriesAbove));
  if (directories.size > MAX_COMMIT_DIRECTORIES) {
    throw new InvalidChangeError('invalid_change', `The changes are under ${directories.size} directories; one commit may touch paths under at most ${MAX_COMMIT_DIRECTORIES}: split it.`);
  }
  for (const change of changes) {
    if (change.op === 'upsert' && change.mode === '120000' && isGitmodules(change.path)) {
      throw new InvalidChangeError('invalid_path', `Path ${JSON.stringify(change.path)}: .gitmodules cannot be a symbolic link.`);
    }
  }
  // Sorted with "/" as the lowest character, a path is immediately followed by the paths under it.
  const sorted = [...paths].sort((a, b) => compareAsDirs(a, b));
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1] as string;
    const next = sorted[i] as string;
    if (prev === next) throw new InvalidChangeError('invalid_change', `Path ${JSON.stringify(prev)} is changed more than once.`);
    if (next.startsWith(`${prev}/`)) throw new InvalidChangeError('invalid_change', `Paths ${JSON.stringify(prev)} and ${JSON.stringify(next)} overlap (one is under the other).`);
  }
}

/** The directories `path` is under, outermost first (`a/b/c` → `a`, `a/b`), each built from the one before. */
export function directoriesAbove(path: string): string[] {
  const above: string[] = [];
  for (let end = path.indexOf('/'); end >= 0; end = path.indexOf('/', end + 1)) above.push(path.slice(0, end));
  return above;
}

function compareAsDirs(a: string, b: string): number {
  const x = a.replaceAll('/', '\0');
  const y = b.replaceAll('/', '\0');
  return x < y ? -1 : x > y ? 1 : 0;
}

// Whole quadruples, padding only at the end. No quantified group: V8 backtracks one of those by recursion, and a
// few MiB of content overflowed the stack (a 500 instead of a commit).
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64 (padded, no whitespace); throws naming the path otherwise. */
export function decodeContent(path: string, content: string): Buffer {
  if (content.length % 4 !== 0 || !BASE64.test(content)) throw new InvalidChangeError('invalid_change', `The content of ${JSON.stringify(path)} is not standard (padded) base64.`);
  return Buffer.from(content, 'base64');
}

/** How many bytes `content` (base64) decodes to, without decoding it. */
export function decodedLength(content: string): number {
  const padding = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((content.length * 3) / 4) - padding);
}

/** An RFC 3339 time with its offset as git records it: `<unix seconds> <+hhmm>` (git-ident.ts's rules, a commit's error). */
export function gitDate(when: string): string {
  try {
    return identityDate(when);
  } catch (error) {
    if (error instanceof InvalidIdentityError) throw new InvalidChangeError('invalid_signature', error.message);
    throw error;
  }
}

/** The `GIT_<ROLE>_NAME/EMAIL/DATE` variables of `who`; throws for what git cannot record in an ident. */
export function identityEnv(role: 'AUTHOR' | 'COMMITTER', who: Signature, now: Date): Record<string, string> {
  for (const [field, value] of [
    ['name', who.name],
    ['email', who.email],
  ] as const) {
    // eslint-disable-next-line no-control-regex
    if (/[<>\x00-\x1f]/.test(value) || value.trim() === '') throw new InvalidChangeError('invalid_signature', `The ${role.toLowerCase()}'s ${field} is empty or contains <, > or a control character.`);
  }
  const date = who.when === undefined ? `${Math.floor(now.getTime() / 1000)} +0000` : gitDate(who.when);
  return { [`GIT_${role}_NAME`]: who.name, [`GIT_${role}_EMAIL`]: who.email, [`GIT_${role}_DATE`]: date };
}
