import { createReadStream } from 'node:fs';
import { mkdtemp, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamBody } from '../object-store/object-store.ts';

const PREFIX = 'cw-upload-';

/**
 * An upload kept on disk while it is checked, so it can be stored afterwards without being held in memory:
 * `tee` writes each chunk to a private temporary file as it passes it on, and `body` reads the file back for
 * the object store (which may send it more than once, on a retry). `dispose` removes it, whatever happened.
 */
export class UploadSpool {
  readonly #dir: string;
  readonly #file: FileHandle;
  #length = 0;

  private constructor(dir: string, file: FileHandle) {
    this.#dir = dir;
    this.#file = file;
  }

  /** A new spool in `dir` (default: the temporary directory; in the chart, the pod's `/tmp` volume). */
  static async create(dir = tmpdir()): Promise<UploadSpool> {
    const own = await mkdtemp(join(dir, PREFIX));
    try {
      return new UploadSpool(own, await open(join(own, 'artifact'), 'wx', 0o600));
    } catch (err) {
      await rm(own, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Removes the spools a process left behind when it was killed during an upload (a container restarted in
   * its pod keeps `/tmp`). Only those older than `minAgeMs`: another process may share the directory.
   */
  static async removeLeftovers(dir = tmpdir(), minAgeMs = 3_600_000): Promise<number> {
    const names = (await readdir(dir).catch(() => [])).filter((name) => name.startsWith(PREFIX));
    let removed = 0;
    for (const name of names) {
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (!info || Date.now() - info.mtimeMs < minAgeMs) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  /** `source`, chunk by chunk, each written to the file before it is passed on. */
  async *tee(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      await this.#file.write(chunk);
      this.#length += chunk.length;
      yield chunk;
    }
  }

  get length(): number {
    return this.#length;
  }

  /** What was written, as a body the object store can read again for each attempt. */
  body(): StreamBody {
    const path = join(this.#dir, 'artifact');
    return { length: this.#length, open: () => createReadStream(path) };
  }

  async dispose(): Promise<void> {
    await this.#file.close().catch(() => {});
    await rm(this.#dir, { recursive: true, force: true });
  }
}
