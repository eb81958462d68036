// Revisions as users type them (a branch, a tag, a full or abbreviated object id, `main~2`), resolved by git itself
// in the cached bare copy.
import { PublicError } from '../../../src/errors.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { objectReaders } from './object-readers.ts';

/** A revision that names no commit in the repository; `which` says which side for a compare ("base", "head"). */
export class RevisionNotFoundError extends PublicError {
  override readonly name = 'RevisionNotFoundError';
  readonly code = 'revision_not_found';
  constructor(revision: string, which?: string) {
    super(404, `${which ? `The ${which} revision ` : 'Revision '}${JSON.stringify(revision)} names no commit in this repository.`);
  }
}

const HEX = /^[0-9a-fA-F]{4,64}$/;

/** Characters no revision needs: those git would read as an option, a range or a pattern are refused first. */
const UNSAFE = new Set([':', '?', '*', '[', '\\', ' ']);

/**
 * What the API documents a revision to be: a ref name or an object id, then any number of `~N` and `^N` steps
 * (`main~2`, `v1.0^`). Nothing else of git's revision syntax: `<rev>^{/<text>}` and `:/<text>` compile the text as a
 * regular expression with glibc, whose memory GIT_ALLOC_LIMIT does not bound (review-177 F2: 25 characters held
 * 650 MiB), and `@{…}` reads a reflog, which the bucket's copies do not keep.
 */
function isSafeRevision(revision: string): boolean {
  if (revision.length === 0 || revision.length > 256 || revision.startsWith('-') || revision.includes('..') || revision.includes('@{')) return false;
  for (const char of revision) {
    const code = char.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || UNSAFE.has(char)) return false;
  }
  return STEPS.test(revision);
}

/** A name without `~` or `^` (`{` and `}` are allowed in ref names), then the steps: so no `^{…}`. */
const STEPS = /^[^~^]+(?:[~^][0-9]{0,6})*$/;

/** Throws a 400 for text that cannot be a revision: a route checks before it waits for a turn, as resolving does. */
export function checkRevision(revision: string): void {
  if (isSafeRevision(revision)) return;
  throw Object.assign(new PublicError(400, `${JSON.stringify(revision.slice(0, 100))} is not a revision: name a branch, a tag or a commit id, optionally followed by ~N or ^N steps.`), {
    code: 'invalid_request',
  });
}

/**
 * The commit `revision` names in the bare repository `dir` (tags peeled), or undefined when it names none. Throws
 * a 400 for text that cannot be a revision.
 */
export async function resolveCommit(dir: string, revision: string): Promise<string | undefined> {
  checkRevision(revision);
  if (HEX.test(revision)) {
    // An object id, full or abbreviated (a tag's object, a commit typed by hand): the copy's long-lived
    // `git cat-file` resolves it with rev-parse's own rules (a ref of that name first, then objects).
    const [commit] = await objectReaders.for(dir).info([`${revision}^{commit}`]);
    return commit?.oid;
  }
  const result = await runGit(['-C', dir, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], { okCodes: [0, 1, 128] });
  if (result.code !== 0) return undefined;
  return result.stdout.toString().trim();
}
