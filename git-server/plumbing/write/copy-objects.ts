// Objects copied from one repository of the bucket into another's write quarantine: `git pack-objects --revs`
// in the source's cached copy, piped into `git index-pack --stdin` under the quarantine's environment, so the
// copy lands as one pack in the quarantine (publishWrite packs and publishes it with the ref updates).
import { PassThrough } from 'node:stream';
import { runGit } from '../../../src/git/run-git.ts';

export interface CopyObjectsRequest {
  /** The source's bare repository (its cached copy). */
  readonly sourceDir: string;
  /** The quarantine's environment (GIT_DIR, GIT_OBJECT_DIRECTORY, alternates) the pack is indexed into. */
  readonly env: Readonly<Record<string, string>>;
  /** Object ids whose reachable objects are copied (commits, tags, trees: `rev-list --objects` semantics). */
  readonly tips: readonly string[];
  /** A bound on the pack's size (the command fails beyond it). */
  readonly maxBytes: number;
  /** Kills both git processes when it aborts (the request's client left). */
  readonly signal?: AbortSignal;
}

/** Copies every object reachable from `tips` in the source into the quarantine, as one pack. */
export async function copyObjects(request: CopyObjectsRequest): Promise<void> {
  if (request.tips.length === 0) return;
  request.signal?.throwIfAborted();
  const pipe = new PassThrough();
  // Its error is pack-objects' (destroyed with it below), judged through `packed`: an index-pack stopped first by the
  // same abort is no longer reading it to hear.
  pipe.on('error', () => {});
  const abort = request.signal ? { signal: request.signal } : {};
  const packed = runGit(['pack-objects', '--revs', '--stdout', '--quiet'], {
    env: { GIT_DIR: request.sourceDir },
    stdin: `${request.tips.join('\n')}\n`,
    stdout: pipe,
    maxStdoutBytes: request.maxBytes,
    ...abort,
  }).then(
    () => pipe.end(),
    (error: unknown) => {
      pipe.destroy(error as Error);
      throw error;
    },
  );
  // A pack index-pack took is whole (its header counts the objects, its trailer checks them): it may exit before
  // pack-objects closes its output, whose write then fails for nothing. Both failed: pack-objects' came first (past
  // the bound, say) and says why.
  const [indexed, written] = await Promise.allSettled([runGit(['index-pack', '--stdin'], { env: request.env, stdin: pipe, ...abort }), packed]);
  if (indexed.status === 'rejected') throw written.status === 'rejected' ? written.reason : indexed.reason;
}
