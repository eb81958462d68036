import { createHash } from 'node:crypto';
import { refGlob } from '../../../src/git/ref-glob.ts';

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
 * every branch), in time linear in the branch: a tenant's pattern runs on the operator's one thread, where a
 * regular expression of many `.*` held it for seconds to minutes for one branch (`a*a*a*a*a*a*a*a*b`, sixty `a`s).
 */
export function previewMatcher(patterns: readonly string[] | undefined): (branch: string) => boolean {
  if (patterns === undefined) return () => true;
  // A ref glob's `*` stops at `/` and its `**` does not.
  const compiled = patterns.map((pattern) => refGlob(pattern.replaceAll('*', '**')));
  return (branch) => compiled.some((glob) => glob.matches(branch));
}
