// Paths inside a repository's tree as the JSON API takes them: `/`-separated, no empty, `.` or `..` segments.
import { PublicError } from '../../../src/errors.ts';
import { trimTrailing } from '../../../src/text/trim.ts';

const MAX_PATH = 4096;

/** `path` without a trailing `/` (`''` is the root); throws a 400 for one that cannot name a tree entry. */
export function normalizeRepoPath(path: string): string {
  const trimmed = trimTrailing(path, '/');
  if (trimmed === '') return '';
  const bad = trimmed.length > MAX_PATH || trimmed.includes('\0') || trimmed.includes('\n') || trimmed.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw Object.assign(new PublicError(400, `${JSON.stringify(trimmed.slice(0, 100))} is not a path in a repository.`), { code: 'invalid_request' });
  return trimmed;
}

/** A path that names nothing at the revision read. */
export class PathNotFoundError extends PublicError {
  override readonly name = 'PathNotFoundError';
  readonly code = 'path_not_found';
  constructor(path: string, revision: string) {
    super(404, `Path ${JSON.stringify(path)} does not exist at ${revision}.`);
  }
}
