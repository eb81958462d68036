// A blob's bytes: whole (for the inline JSON answer, bounded) or streamed (the raw answer, never held in memory).
import type { Writable } from 'node:stream';
import { runGit } from '../run-git.ts';

/** Blob `sha`'s bytes; fails when they are more than `maxBytes`. */
export async function readBlob(dir: string, sha: string, maxBytes: number): Promise<Buffer> {
  return (await runGit(['-C', dir, 'cat-file', 'blob', sha], { maxStdoutBytes: maxBytes })).stdout;
}

/** Writes blob `sha`'s bytes to `out` with backpressure (not ending it); resolves when git is done. */
export async function streamBlob(dir: string, sha: string, out: Writable): Promise<void> {
  await runGit(['-C', dir, 'cat-file', 'blob', sha], { stdout: out });
}
