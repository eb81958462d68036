// A fetch's request (its wants and haves) is received whole before the fetch takes its turn among those running: a
// client trickling its request would otherwise hold a fetch slot, meant for a pack-objects using a core, while
// sending nothing. Small requests (nearly all) stay in memory; a large negotiation goes to a file on the cache's
// disk, counted against the spool budget as a push is.
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { SpoolMeter } from './spool-budget.ts';

/** Requests up to this size are kept in memory (a clone's is a few hundred bytes; each round of haves adds ~50 a commit). */
export const IN_MEMORY_REQUEST_BYTES = 64 * 1024;

export interface ReceivedFetchRequest {
  /** The request as git reads it, from the start. */
  readonly body: Readable;
  /** Deletes the spooled file, if any. Safe to call more than once. */
  dispose(): Promise<void>;
}

/**
 * Reads `body` to its end (it is already bounded in size and decoded: `requestBody`). Rejects as `body` fails (a
 * client gone, a body too large or not valid gzip) or as `spool` refuses the bytes, leaving nothing behind.
 */
export async function receiveFetchRequest(body: Readable, options: { readonly tmpDir: string; readonly spool: SpoolMeter }): Promise<ReceivedFetchRequest> {
  const chunks: Buffer[] = [];
  let held = 0;
  let file: { dir: string; handle: FileHandle } | undefined;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      held += chunk.length;
      if (!file && held <= IN_MEMORY_REQUEST_BYTES) {
        chunks.push(chunk);
        continue;
      }
      options.spool.reach(held);
      if (!file) {
        await mkdir(options.tmpDir, { recursive: true });
        const dir = await mkdtemp(join(options.tmpDir, 'fetch-'));
        file = { dir, handle: await open(join(dir, 'request'), 'w') };
        for (const earlier of chunks) await file.handle.write(earlier);
        chunks.length = 0;
      }
      await file.handle.write(chunk);
    }
  } catch (error) {
    if (file) {
      await file.handle.close().catch(() => undefined);
      await rm(file.dir, { recursive: true, force: true });
    }
    throw error;
  }
  if (!file) return { body: Readable.from(chunks.length === 0 ? [] : [Buffer.concat(chunks)]), dispose: () => Promise.resolve() };
  await file.handle.close();
  const { dir } = file;
  return { body: createReadStream(join(dir, 'request')), dispose: () => rm(dir, { recursive: true, force: true }) };
}
