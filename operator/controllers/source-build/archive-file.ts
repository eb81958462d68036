// `git archive` of one tree into a file, counted as it is written: a repository's source can be far larger than
// the operator should hold in memory, so the archive is never buffered whole, and one over the cap stops git at
// the cap rather than after it has written everything.
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runGit } from '../../../src/git/run-git.ts';

/** The archive passed its cap: the source is not built (the exporter says SourceUnavailable). */
export class ArchiveTooLargeError extends Error {
  override readonly name = 'ArchiveTooLargeError';
}

/**
 * Writes `git archive --format=<format> <tree>` of the repository at `dir` to `file` and answers its size.
 * @throws ArchiveTooLargeError past `maxBytes` (git is killed, the file is partial); GitCommandError when git fails.
 */
export async function gitArchiveToFile(dir: string, tree: string, format: 'tar' | 'tar.gz', file: string, maxBytes: number): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) done(new ArchiveTooLargeError(`the source archive is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  const written = pipeline(counter, createWriteStream(file));
  written.catch(() => {}); // awaited below; handled now, since git may fail first
  try {
    // git's stdout is piped into the counter with backpressure, and not ended: ended here once git is done.
    await runGit(['-C', dir, 'archive', `--format=${format}`, tree], { stdout: counter });
    counter.end();
    await written;
  } catch (err) {
    counter.destroy();
    await written.catch(() => {});
    if (bytes > maxBytes) throw new ArchiveTooLargeError(`the source archive is larger than ${maxBytes} bytes`);
    throw err;
  }
  return bytes;
}
