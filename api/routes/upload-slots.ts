import { PublicError, UnavailableError } from '../../src/errors.ts';

export interface UploadLimits {
  /** Uploads this process reads at once (each may buffer the whole artifact, then unpack it). */
  readonly total: number;
  /** Of those, uploads one user reads at once. */
  readonly perUser: number;
}

/** Four uploads at once, two of them one user's: a deploy buffers up to 64 MiB and unpacks up to 256 MiB. */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { total: 4, perUser: 2 };

const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the deploy uploads in progress, per process and per user, so that slow or parallel uploads cannot
 * take the API's memory: the request rate limit counts requests started, not requests still being read.
 */
export class UploadSlots {
  readonly #limits: UploadLimits;
  readonly #byUser = new Map<string, number>();
  #total = 0;

  constructor(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
    this.#limits = limits;
  }

  /**
   * Takes a slot for `userId`; call the answer once the upload is done with, whatever its outcome.
   *
   * @throws PublicError 429 when the user has `perUser` uploads in progress; UnavailableError (503) when the process has `total`
   */
  take(userId: string): () => void {
    const mine = this.#byUser.get(userId) ?? 0;
    if (mine >= this.#limits.perUser) {
      throw new PublicError(429, `You have ${mine} deploy uploads in progress, the most at once; retry once one has finished.`, {
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
    }
    if (this.#total >= this.#limits.total) throw new UnavailableError('The API is receiving as many deploy uploads as it reads at once; retry shortly.', RETRY_AFTER_SECONDS);
    this.#total += 1;
    this.#byUser.set(userId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#byUser.get(userId) ?? 1) - 1;
      if (left === 0) this.#byUser.delete(userId);
      else this.#byUser.set(userId, left);
    };
  }
}
