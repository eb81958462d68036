// Which repositories a git token reaches: a list of patterns over `owner/name`. `acme` is every repository of the
// owner acme (`acme/*`); `acme/site` one repository; `*` in a segment matches any run of characters in that
// segment (`team-*`, `acme/docs-*`). Matched by the linear-time glob of webhook filters, so a pattern cannot make a
// request backtrack. A token without patterns (an operator's own) reaches every repository.
import { refGlob, type RefGlob } from '../../src/git/ref-glob.ts';
import type { RepoPath } from '../../src/repo-store/repo-path.ts';

/** Patterns one token may carry. */
export const MAX_REPO_PATTERNS = 32;
// A repository path segment's characters, plus `*`; at most 100 characters like the segment itself.
const PATTERN_SEGMENT = /^[A-Za-z0-9._*-]{1,100}$/;

/** Why a pattern is refused, for messages: what a valid one looks like. */
export const REPO_PATTERN_RULE = 'an owner (acme), an owner and a repository (acme/site), either with * standing for any characters in its segment (team-*, acme/docs-*)';

/** What a token may reach: every repository, or those matching one of its patterns. */
export type RepoReach =
  | { readonly all: true }
  | {
      readonly all: false;
      readonly patterns: readonly string[];
      readonly matchers: readonly RefGlob[];
      /** Repositories the patterns match that the token still does not reach (a project token: cw-git's own). */
      readonly except?: (repo: RepoPath) => boolean;
    };

/** Every repository: tokens without patterns (cw-git's own, minted from its configuration). */
export const EVERY_REPOSITORY: RepoReach = Object.freeze({ all: true });

/** Whether `pattern` is a valid repository pattern (see {@link REPO_PATTERN_RULE}). */
export function isRepoPattern(pattern: string): boolean {
  const segments = pattern.split('/');
  return segments.length <= 2 && segments.every((segment) => PATTERN_SEGMENT.test(segment) && !segment.includes('**'));
}

/** The pattern as matched against `owner/name`: an owner alone means every repository of it. */
export function normalizeRepoPattern(pattern: string): string {
  return pattern.includes('/') ? pattern : `${pattern}/*`;
}

/**
 * The reach of a token with `patterns` (normalized to `owner/name` form, de-duplicated, in order).
 * @throws Error naming the first invalid pattern, or when there are none or too many.
 */
export function repoReach(patterns: readonly string[], except?: (repo: RepoPath) => boolean): RepoReach {
  if (patterns.length === 0) throw new Error('a repository reach needs at least one pattern');
  if (patterns.length > MAX_REPO_PATTERNS) throw new Error(`at most ${MAX_REPO_PATTERNS} repository patterns`);
  for (const pattern of patterns) {
    if (!isRepoPattern(pattern)) throw new Error(`${JSON.stringify(pattern.slice(0, 210))} is not a repository pattern: use ${REPO_PATTERN_RULE}`);
  }
  const normalized = [...new Set(patterns.map(normalizeRepoPattern))];
  return Object.freeze({ all: false, patterns: Object.freeze(normalized), matchers: Object.freeze(normalized.map(refGlob)), ...(except ? { except } : {}) });
}

/** Whether the token's reach covers `repo`. */
export function reaches(reach: RepoReach, repo: RepoPath): boolean {
  return reach.all || (reach.matchers.some((matcher) => matcher.matches(repo.full)) && !reach.except?.(repo));
}

/** The reach in words, for a 403: `every repository`, or the patterns. */
export function describeReach(reach: RepoReach): string {
  return reach.all ? 'every repository' : reach.patterns.join(', ');
}
