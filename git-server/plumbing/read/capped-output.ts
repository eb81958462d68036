// Git output a client reads only the head of (a patch, a long log): collected up to a byte budget, then the
// process is stopped and the answer says it was cut, where `runGit`'s `maxStdoutBytes` would fail the command.
import { Writable } from 'node:stream';
import { runGit } from '../../../src/git/run-git.ts';

export interface CappedOutput {
  /** At most `maxBytes` bytes: the whole output, or its first `maxBytes` bytes when `truncated`. */
  readonly stdout: Buffer;
  readonly truncated: boolean;
}

/**
 * Runs `git args...` and collects up to `maxBytes` of its output. Past that the process is killed and the head
 * is answered with `truncated: true`. `signal` (a request's deadline) still fails the command.
 */
export async function runGitCapped(args: readonly string[], options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<CappedOutput> {
  const stop = new AbortController();
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!truncated) {
        const room = options.maxBytes - size;
        if (chunk.byteLength > room) {
          chunks.push(chunk.subarray(0, room));
          size = options.maxBytes;
          truncated = true;
          stop.abort();
        } else {
          chunks.push(chunk);
          size += chunk.byteLength;
        }
      }
      done();
    },
  });
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    await runGit(args, { stdout: sink, signal });
  } catch (error) {
    // Stopped by us once the budget was spent: the head is the answer. Anything else (the deadline) is a failure.
    if (!truncated || options.signal?.aborted) throw error;
  }
  return { stdout: Buffer.concat(chunks), truncated };
}
