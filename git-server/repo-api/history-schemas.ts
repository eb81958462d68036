// The commit and changed-file shapes the history routes share (commits, commit, compare), and what they bound.
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { FILE_STATUSES } from '../plumbing/read/diff-files.ts';

/** Files listed per commit or comparison; beyond, the list is cut and says so. */
export const MAX_FILES = 3000;
/** A read route's git work past this is stopped and answered 504 `timeout`. */
export const READ_DEADLINE_MS = 30_000;

const Signature = Type.Object({
  name: Type.String(),
  email: Type.String(),
  date: Type.String({ description: 'Strict ISO 8601 with the offset the commit recorded, e.g. `2026-01-01T12:00:00+02:00`.' }),
});

export const CommitSchema = Type.Object(
  {
    sha: Type.String({ description: 'Full object id.' }),
    parents: Type.Array(Type.String(), { description: 'Parent object ids; first parent first; empty for a root commit.' }),
    author: Signature,
    committer: Signature,
    subject: Type.String({ description: "The message's first paragraph, its lines joined by spaces (git's `%s`)." }),
    body: Type.String({ description: "The rest of the message, trailing newlines removed (git's `%b`)." }),
  },
  { description: 'A commit. Author and committer are nested objects (gitcask flattens them; we do not).' },
);
export type CommitSchema = Static<typeof CommitSchema>;

export const FileChangeSchema = Type.Object({
  path: Type.String(),
  status: Type.Enum(FILE_STATUSES, { description: 'How the file changed; `type_changed`: a file became a link or the reverse.' }),
  additions: Type.Union([Type.Integer(), Type.Null()], { description: 'Lines added; null for a binary file.' }),
  deletions: Type.Union([Type.Integer(), Type.Null()], { description: 'Lines deleted; null for a binary file.' }),
  previous_path: Type.Optional(Type.String({ description: 'The path before, for renames and copies.' })),
});

/** A full object id (sha1 or sha256): answers addressed by one are immutable. */
export function isFullOid(revision: string, resolved: string): boolean {
  return /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(revision) && revision === resolved;
}

/** A short, quote-free digest of what else shapes an answer besides the commits it is made of (for ETags). */
export function digest(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

/** Runs `read` with a signal that fires after `READ_DEADLINE_MS`; git stopped by it answers 504 `timeout`. */
export async function withDeadline<T>(read: (signal: AbortSignal) => Promise<T>, ms = READ_DEADLINE_MS): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await read(signal);
  } catch (error) {
    if (signal.aborted) throw Object.assign(new PublicError(504, `The read took longer than ${ms / 1000} s and was stopped.`), { code: 'timeout' });
    throw error;
  }
}
