// A blob's bytes: whole (for the inline JSON answer, bounded; from the copy's long-lived `git cat-file`) or
// streamed (the raw answer, any size, never held in memory: a `git cat-file blob` of its own).
import type { Writable } from 'node:stream';
import { GitCommandError, runGit } from '../../../src/git/run-git.ts';
import { objectReaders } from './object-readers.ts';

/** Blob `sha`'s bytes; fails when they are more than `maxBytes` (`ObjectTooLargeError`) or it is no blob. */
export async function readBlob(dir: string, sha: string, maxBytes: number): Promise<Buffer> {
  const blob = await objectReaders.for(dir).contents(sha, maxBytes);
  if (blob?.type !== 'blob') throw new GitCommandError('git cat-file', null, `found no blob ${JSON.stringify(sha)}`);
  return blob.bytes;
}

/** Writes blob `sha`'s bytes to `out` with backpressure (not ending it); resolves when git is done. */
export async function streamBlob(dir: string, sha: string, out: Writable): Promise<void> {
  await runGit(['-C', dir, 'cat-file', 'blob', sha], { stdout: out });
}
