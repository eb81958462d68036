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

function isSafeRevision(revision: string): boolean {
  if (revision.length === 0 || revision.length > 256 || revision.startsWith('-') || revision.includes('..')) return false;
  for (const char of revision) {
    const code = char.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || UNSAFE.has(char)) return false;
  }
  return true;
}

/**
 * The commit `revision` names in the bare repository `dir` (tags peeled), or undefined when it names none. Throws
 * a 400 for text that cannot be a revision.
 */
export async function resolveCommit(dir: string, revision: string): Promise<string | undefined> {
  if (!isSafeRevision(revision)) {
    throw Object.assign(new PublicError(400, `${JSON.stringify(revision.slice(0, 100))} is not a revision.`), { code: 'invalid_request' });
  }
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
