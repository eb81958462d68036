import { createHash } from 'node:crypto';

const MAX_LABEL = 63;

/** A branch as a DNS label's characters: lowercase letters, digits and single hyphens, none at the ends. */
export function branchSlug(branch: string): string {
  return branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The preview app of `branch` for the app `app`: `<branch-slug>--<app>`, so its default host is
 * `<branch-slug>--<app>.<project>.<base>` (Netlify's shape). Always a valid DNS label: when it would pass 63
 * characters, the branch has no letter or digit, or `hashed` (another branch has the same slug: `fix/a` and
 * `fix-a`), the slug is cut and a short hash of the branch keeps different branches apart; the app's name is
 * cut only when it alone leaves no room.
 */
export function previewAppName(branch: string, app: string, hashed = false): string {
  const slug = branchSlug(branch);
  const whole = `${slug}--${app}`;
  if (!hashed && slug !== '' && whole.length <= MAX_LABEL) return whole;
  const hash = createHash('sha256').update(branch).digest('hex').slice(0, 6);
  const room = MAX_LABEL - app.length - 2 - hash.length - 1;
  if (room >= 1 && slug !== '') return `${slug.slice(0, room).replace(/-+$/, '')}-${hash}--${app}`;
  if (MAX_LABEL - app.length - 2 - hash.length >= 0) return `${hash}--${app}`;
  return `${hash}--${app.slice(0, MAX_LABEL - hash.length - 2).replace(/-+$/, '')}`;
}

/**
 * Whether a branch matches one of the preview patterns (`*` matches any characters, `/` included; none given:
 * every branch).
 */
export function previewMatcher(patterns: readonly string[] | undefined): (branch: string) => boolean {
  if (patterns === undefined) return () => true;
  return (branch) => patterns.some((pattern) => globMatches(pattern, branch));
}

/**
 * `*`-only glob matching in time linear in the pattern times the text, never backtracking further than the last
 * star: a tenant's pattern runs on the operator's one thread, where a regular expression of many `.*` took
 * seconds to minutes for one branch (`a*a*a*a*a*a*a*a*b` against sixty `a`s).
 */
export function globMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  // Where the last star was, and the text position it is matching up to: a mismatch lets that star take one more.
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      starText = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++starText;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
