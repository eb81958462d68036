// How an archive is addressed and named: `{archive_ref}` is `<revision>.tar.gz` or `<revision>.zip` (or any
// revision with `?format=`), unpacking under `<repo>-<short sha>/` (as GitHub's archives do) unless `prefix` says
// otherwise. Pure, so the naming rules are table-tested.
import { createHash } from 'node:crypto';
import { PublicError } from '../../src/errors.ts';
import { ARCHIVE_FORMATS, type ArchiveFormat } from '../plumbing/read/archive.ts';

/** How many hex digits of the commit the default prefix and file name carry (git's and GitHub's default). */
export const SHORT_SHA_LENGTH = 7;

export const CONTENT_TYPES: Readonly<Record<ArchiveFormat, string>> = { 'tar.gz': 'application/gzip', zip: 'application/zip' };

function invalid(message: string): PublicError {
  return Object.assign(new PublicError(400, message), { code: 'invalid_request' });
}

/**
 * The revision and format an `{archive_ref}` names. Without `format`, the ref must end in `.tar.gz` or `.zip`.
 * With it, a trailing `.<format>` is dropped and the rest is the revision (so a branch called `x.zip` can still be
 * fetched as `x.zip.zip` or `x.zip?format=zip`).
 */
export function parseArchiveRef(ref: string, format?: string): { revision: string; format: ArchiveFormat } {
  if (format !== undefined && !isFormat(format)) throw invalid(`format must be one of ${ARCHIVE_FORMATS.join(', ')}, not ${JSON.stringify(format.slice(0, 20))}.`);
  const formats = format === undefined ? ARCHIVE_FORMATS : [format];
  for (const f of formats) {
    if (ref.endsWith(`.${f}`) && ref.length > f.length + 1) return { revision: ref.slice(0, -(f.length + 1)), format: f };
  }
  if (format !== undefined && ref !== '') return { revision: ref, format };
  throw invalid(`${JSON.stringify(ref.slice(0, 100))} names no archive: use <revision>.tar.gz, <revision>.zip, or ?format=tar.gz|zip.`);
}

function isFormat(value: string): value is ArchiveFormat {
  return (ARCHIVE_FORMATS as readonly string[]).includes(value);
}

/** `<repo>-<short sha>/`, what an archive unpacks under by default. */
export function defaultPrefix(repoName: string, commit: string): string {
  return `${repoName}-${commit.slice(0, SHORT_SHA_LENGTH)}/`;
}

/**
 * A `prefix` a client gave, as `git archive --prefix` takes it (verbatim: `dir/` makes a directory, `dir` glues
 * onto each name). Refused (400): control characters, a leading `/`, `.` or `..` segments, more than 200 characters.
 */
export function checkPrefix(prefix: string): string {
  const bad = prefix.length > 200 || /[\p{Cc}\\]/u.test(prefix) || prefix.startsWith('/') || prefix.split('/').some((segment) => segment === '.' || segment === '..');
  if (bad) throw invalid('prefix must be a relative path of at most 200 characters, without control characters, backslashes, "." or "..".');
  return prefix;
}

/** The download's file name: `<repo>-<short sha>.<format>`, whatever the prefix. */
export function archiveFileName(repoName: string, commit: string, format: ArchiveFormat): string {
  return `${repoName}-${commit.slice(0, SHORT_SHA_LENGTH)}.${format}`;
}

/** `attachment; filename="…"`: repository names are `[A-Za-z0-9._-]`, so the name needs no escaping. */
export function contentDisposition(fileName: string): string {
  return `attachment; filename="${fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

/**
 * The strong ETag's value (unquoted) and the spool key: the commit, the format and the prefix are everything the
 * bytes are made of (for one git version: every instance runs the same image), unless the tree has export-subst
 * placeholders: then the repository (its incarnation) and its refs (the log's seq) are too.
 */
export function archiveTag(commit: string, format: ArchiveFormat, prefix: string, refs?: { repoId: string; seq: number }): string {
  const made = createHash('sha256').update(prefix);
  if (refs) made.update(`\0${refs.repoId}\0${refs.seq}`);
  return `${commit}-${format}-${made.digest('hex').slice(0, 16)}`;
}

/** Whether `revision` is a full object id: then the archive can never change. */
export function isFullObjectId(revision: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(revision);
}
