// What initialize and import share: the operation key that makes a retry safe, the allow-list of source
// repositories (same bucket only), and the errors of a target that is no longer pristine.
import { Type } from 'typebox';
import { PublicError } from '../../../src/errors.ts';
import { parseRepoPath } from '../../../src/repo-store/index.ts';

export const OPERATION_KEY = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$',
  description: 'Chosen by the client, one per intended operation: a retry with the same key (and the same request) answers the first result.',
});

/** 403: the source is not in the allow-list of the route (`api.initialize_sources`, `api.import_sources`). */
export class SourceNotAllowedError extends PublicError {
  override readonly name = 'SourceNotAllowedError';
  readonly code = 'source_not_allowed';
  constructor(source: string, key: string) {
    super(403, `${JSON.stringify(source)} is not a source this service may copy from (${key}).`);
  }
}

/** 409: the target has refs, and they are not the result of this very operation. */
export class NotPristineError extends PublicError {
  override readonly name = 'NotPristineError';
  readonly code = 'not_pristine';
  constructor(repo: string) {
    super(409, `${repo} is not pristine (it has refs), and they were not written by this operation.`);
  }
}

/** 422: the source and the target use different object formats (sha1, sha256). */
export class ObjectFormatMismatchError extends PublicError {
  override readonly name = 'ObjectFormatMismatchError';
  readonly code = 'object_format_mismatch';
  constructor(source: string, target: string) {
    super(422, `The source uses ${source} object ids, the target ${target}.`);
  }
}

/** The allow-listed `owner/name` of `source`, or a 403 naming the config key. */
export function allowedSource(source: { owner: string; repo: string }, allowed: readonly string[] | undefined, key: string): string {
  const full = `${source.owner}/${source.repo}`;
  let path: string;
  try {
    path = parseRepoPath(full).full;
  } catch {
    throw new SourceNotAllowedError(full, key);
  }
  if (!(allowed ?? []).includes(path)) throw new SourceNotAllowedError(path, key);
  return path;
}
