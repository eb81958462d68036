// Repository names: `<owner>/<repo>`, the routing key of the service and the bucket prefix of its state.
import { PublicError } from '../errors.ts';

/** A validated repository name. */
export interface RepoPath {
  readonly owner: string;
  readonly name: string;
  /** `owner/name` */
  readonly full: string;
}

// One path segment: no dot-only names, nothing a URL or an object key would have to escape. Case is kept
// (object keys are case-sensitive); a `.git` suffix belongs to the URL, which strips it before we see it.
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

/** Raised for a repository name that cannot be stored. */
export class InvalidRepoNameError extends PublicError {
  override readonly name = 'InvalidRepoNameError';
  constructor(text: string) {
    super(400, `"${text}" is not a repository name: expected <owner>/<repo>, each 1-100 of A-Z a-z 0-9 . _ - (no .git suffix)`);
  }
}

export function isValidSegment(segment: string): boolean {
  return SEGMENT.test(segment) && !segment.endsWith('.git') && !segment.endsWith('.') && !segment.includes('..');
}

/** Parses `owner/repo`; throws `InvalidRepoNameError`. */
export function parseRepoPath(text: string): RepoPath {
  const parts = text.split('/');
  const [owner, name] = parts;
  if (parts.length !== 2 || owner === undefined || name === undefined || !isValidSegment(owner) || !isValidSegment(name)) {
    throw new InvalidRepoNameError(text);
  }
  return { owner, name, full: `${owner}/${name}` };
}

/**
 * The repository a git or LFS URL names (`/{owner}/{repo}/…`): a `.git` suffix on the repository segment is
 * accepted, as every git host does. Throws `InvalidRepoNameError`.
 */
export function parseUrlRepoPath(owner: string, repo: string): RepoPath {
  return parseRepoPath(`${owner}/${repo.endsWith('.git') ? repo.slice(0, -4) : repo}`);
}
