import { createHash } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import { constants, createZstdDecompress } from 'node:zlib';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';
import type { ByteSource } from './tar.ts';

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/**
 * The largest zstd window accepted, as a power of two: 8 MiB, what `zstd -19` uses (levels 1–19 use at
 * most this). The decoder holds a window of this size per stream, so it bounds decompression's memory;
 * `--ultra` levels (20–22) and `--long` ask for up to 128 MiB or more and are refused.
 */
export const ZSTD_WINDOW_LOG_MAX = 23;

export interface ZstdLimits {
  /** Compressed bytes read at most (413 `compressedBytes` past it). */
  readonly maxCompressedBytes: number;
  /** Decompressed bytes produced at most (413 `uncompressedBytes`: decompression stops there). */
  readonly maxUncompressedBytes: number;
}

/** A `.tar.zst` being decompressed: the tar stream, and what was read of the compressed one. */
export interface ZstdStream {
  /** The decompressed bytes as they come; read it to its end (or stop by throwing). */
  readonly output: AsyncIterable<Uint8Array>;
  /** `sha256:<hex>` of the compressed bytes, once `output` has ended. */
  digest(): string;
  readonly compressedBytes: () => number;
  readonly uncompressedBytes: () => number;
}

/**
 * Decompresses the zstd stream `source` as it arrives, never holding more than a chunk and the decoder's
 * window: a 10 KB bomb that would unpack to gigabytes costs its window and stops at the limit. Refuses what
 * is not zstd (`ArtifactError`, naming gzip) and passes on errors `source` throws (an upload too slow, say).
 */
export function decompressZstd(source: ByteSource, limits: ZstdLimits): ZstdStream {
  const hash = createHash('sha256');
  let compressed = 0;
  let uncompressed = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    let head = new Uint8Array(0);
    for await (const chunk of source) {
      compressed += chunk.length;
      if (compressed > limits.maxCompressedBytes) throw tooLarge('compressedBytes', limits.maxCompressedBytes);
      hash.update(chunk);
      if (head.length < ZSTD_MAGIC.length) {
        head = Buffer.concat([head, chunk]);
        if (head.length < ZSTD_MAGIC.length) continue;
        checkMagic(head);
        yield head;
        continue;
      }
      yield chunk;
    }
    if (head.length < ZSTD_MAGIC.length) checkMagic(head);
  }
  const decoder = createZstdDecompress({ params: { [constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX } });
  // The callback only settles the pipeline: its error also ends the iteration of `decoder` below.
  const out = pipeline(Readable.from(counted(), { objectMode: false }), decoder, () => {});
  async function* output(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of out as AsyncIterable<Uint8Array>) {
        uncompressed += chunk.length;
        if (uncompressed > limits.maxUncompressedBytes) throw tooLarge('uncompressedBytes', limits.maxUncompressedBytes);
        yield chunk;
      }
    } catch (err) {
      throw zstdError(err);
    } finally {
      out.destroy();
    }
  }
  return {
    output: output(),
    digest: () => `sha256:${hash.copy().digest('hex')}`,
    compressedBytes: () => compressed,
    uncompressedBytes: () => uncompressed,
  };
}

function checkMagic(head: Uint8Array): void {
  if (ZSTD_MAGIC.every((b, i) => head[i] === b)) return;
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  throw new ArtifactError(`artifact must be a zstd-compressed tar archive (.tar.zst)${gzip ? '; this is gzip data' : ''}`);
}

/** The decoder's own errors (`ZSTD_error_*`, `Z_BUF_ERROR` for a truncated stream) say the input is not valid zstd. */
function zstdError(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !(code.startsWith('ZSTD_error') || code.startsWith('Z_'))) return err;
  if (code === 'ZSTD_error_frameParameter_windowTooLarge') {
    return new ArtifactError(
      `artifact needs a zstd window larger than ${2 ** ZSTD_WINDOW_LOG_MAX / 1024 / 1024} MiB to decompress (it was compressed with --long or an --ultra level); compress it with a level up to 19 and without --long`,
    );
  }
  return new ArtifactError(`artifact is not a valid zstd stream: ${(err as Error).message}`);
}

export function tooLarge(limit: 'compressedBytes' | 'uncompressedBytes', maximum: number): ArtifactTooLargeError {
  const detail = limit === 'compressedBytes' ? `artifact is larger than ${maximum} bytes` : `artifact unpacks to more than ${maximum} bytes`;
  return new ArtifactTooLargeError(limit, maximum, detail);
}
