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
  /**
   * Past its grace, an upload arriving slower than this on average gives its slot up to an upload that finds every
   * slot taken (the slowest first; 408 to it): slow uploads hold slots only while nobody waits for one.
   */
  readonly yieldBelowBytesPerSecond: number;
}

/**
 * Eight uploads at once, two of them one user's. An upload is streamed through the checks (a zstd window of at
 * most 8 MiB, a chunk, configuration files of at most 1 MiB each) and kept on disk, not in memory: measured, eight
 * uploads of decompression bombs at once add under 100 MiB to cw-api, well inside the chart's 512 MiB limit
 * (e2e/upload-bounds.test.ts). Each may hold its slot two minutes at most, and must arrive at 16 KiB/s or more
 * on average; one slower than 256 KiB/s gives its slot up to a new upload when every slot is taken, so uploads
 * sent just above the minimum from several accounts (tried: eight at 20 KiB/s held every slot for two minutes)
 * cannot keep other tenants' deploys out.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  total: 8,
  perUser: 2,
  timeoutMs: 120_000,
  minBytesPerSecond: 16 * 1024,
  graceMs: 10_000,
  yieldBelowBytesPerSecond: 256 * 1024,
};

const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the deploy uploads in progress, per process and per user, so that slow or parallel uploads cannot
 * take the API's memory or its disk: the request rate limit counts requests started, not requests still being read.
 */
export class UploadSlots {
  readonly #slots: KeyedSlots;
  readonly #limits: UploadLimits;
  readonly #now: () => number;
  readonly #uploads = new Set<UploadSlot>();

  constructor(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS, now: () => number = performance.now.bind(performance)) {
    this.#slots = new KeyedSlots({ total: limits.total, perKey: limits.perUser });
    this.#limits = limits;
    this.#now = now;
  }

  /**
   * Takes a slot for `userId`, if need be from the slowest upload in progress (`yieldBelowBytesPerSecond`); release
   * it once the upload is done with, whatever its outcome.
   *
   * @throws PublicError 429 when the user has `perUser` uploads in progress; UnavailableError (503) when the process has `total`
   */
  take(userId: string): UploadSlot {
    let slot = this.#slots.take(userId);
    if (!('release' in slot) && slot.refused === 'total' && this.#yieldSlowest()) slot = this.#slots.take(userId);
    if ('release' in slot) {
      const upload = new UploadSlot(this.#now(), () => {
        this.#uploads.delete(upload);
        slot.release();
      });
      this.#uploads.add(upload);
      return upload;
    }
    if (slot.refused === 'key') {
      throw new PublicError(429, `You have ${slot.held} deploy uploads in progress, the most at once; retry once one has finished.`, {
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
    }
    throw new UnavailableError('The API is receiving as many deploy uploads as it reads at once; retry shortly.', RETRY_AFTER_SECONDS);
  }

  /** Ends the slowest upload past its grace that arrives slower than `yieldBelowBytesPerSecond`, freeing its slot; false if none does. */
  #yieldSlowest(): boolean {
    const now = this.#now();
    let slowest: { upload: UploadSlot; rate: number } | undefined;
    for (const upload of this.#uploads) {
      const elapsed = now - upload.started;
      if (elapsed < this.#limits.graceMs) continue;
      const rate = upload.received / (elapsed / 1000);
      if (rate < this.#limits.yieldBelowBytesPerSecond && (!slowest || rate < slowest.rate)) slowest = { upload, rate };
    }
    if (!slowest) return false;
    slowest.upload.yield(
      `The upload arrived at ${Math.round(slowest.rate)} bytes/s on average while other deploys waited for its slot, which goes to an upload slower than ${this.#limits.yieldBelowBytesPerSecond} bytes/s gives up then; retry on a faster connection.`,
    );
    return true;
  }
}

/** One upload's slot: what it has received, and the signal that it must give the slot up (`UploadTooSlowError`). */
export class UploadSlot {
  readonly started: number;
  received = 0;
  readonly #abort = new AbortController();
  readonly #release: () => void;

  constructor(started: number, release: () => void) {
    this.started = started;
    this.#release = release;
  }

  /** Aborted, with the detail to answer, when the slot is taken for another upload. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Frees the slot; once. */
  release(): void {
    this.#release();
  }

  /** Gives the slot up now (it is free at once) and tells the upload why. */
  yield(detail: string): void {
    this.#release();
    this.#abort.abort(detail);
  }
}
