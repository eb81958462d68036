import { PublicError, UnavailableError } from '../../src/errors.ts';
import { KeyedSlots } from '../../src/collections/keyed-slots.ts';

export interface UploadLimits {
  /** Uploads this process reads at once. */
  readonly total: number;
  /** Of those, uploads one user reads at once. */
  readonly perUser: number;
  /** The longest one upload may take to arrive, from its route's start. */
  readonly timeoutMs: number;
  /** The slowest an upload may arrive, on average from its start, once `graceMs` have passed. */
  readonly minBytesPerSecond: number;
  /** How long an upload is not held to its minimum rate (a connection's slow start, a pause). */
  readonly graceMs: number;
}

/**
 * Eight uploads at once, two of them one user's. An upload is streamed through the checks (a zstd window of at
 * most 8 MiB, a chunk, configuration files of at most 1 MiB each) and kept on disk, not in memory: measured, eight
 * uploads of decompression bombs at once add under 100 MiB to cw-api, well inside the chart's 512 MiB limit
 * (e2e/upload-bounds.test.ts). Each may hold its slot two minutes at most, and must arrive at 16 KiB/s or more
 * on average, so slow clients cannot keep the slots for long.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { total: 8, perUser: 2, timeoutMs: 120_000, minBytesPerSecond: 16 * 1024, graceMs: 10_000 };

const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the deploy uploads in progress, per process and per user, so that slow or parallel uploads cannot
 * take the API's memory or its disk: the request rate limit counts requests started, not requests still being read.
 */
export class UploadSlots {
  readonly #slots: KeyedSlots;

  constructor(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
    this.#slots = new KeyedSlots({ total: limits.total, perKey: limits.perUser });
  }

  /**
   * Takes a slot for `userId`; call the answer once the upload is done with, whatever its outcome.
   *
   * @throws PublicError 429 when the user has `perUser` uploads in progress; UnavailableError (503) when the process has `total`
   */
  take(userId: string): () => void {
    const slot = this.#slots.take(userId);
    if ('release' in slot) return slot.release;
    if (slot.refused === 'key') {
      throw new PublicError(429, `You have ${slot.held} deploy uploads in progress, the most at once; retry once one has finished.`, {
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
    }
    throw new UnavailableError('The API is receiving as many deploy uploads as it reads at once; retry shortly.', RETRY_AFTER_SECONDS);
  }
}
