// Pushes, LFS uploads and URL imports are received onto the cache's disk (a push's quarantine, an upload's spool
// file, an import's fetched copy) before the bucket has them. Each is bounded in size, but not in number: one owner's many parallel uploads of large
// objects could fill the volume every repository copy and every other tenant's push needs (on Kubernetes, past
// the cache's emptyDir limit the pod is evicted). So the bytes being received are counted, per owner and in all.
import { Transform } from 'node:stream';
import { PublicError } from '../../src/errors.ts';
import { formatBytes } from '../commands/format.ts';

export interface SpoolBounds {
  /** What every push and upload being received may hold on the disk at once (`cache.spool_max_size`). */
  readonly totalBytes: number;
  /** What one owner's may hold at once (`cache.spool_max_size_per_owner`). */
  readonly perOwnerBytes: number;
}

/**
 * A receive would pass a bound: 429 for the owner's own (retry once one of its uploads ends), 503 for the
 * instance's; 413 when the receive alone is larger than a bound, which no retry can help.
 */
export class SpoolFullError extends PublicError {
  override readonly name = 'SpoolFullError';
  readonly code: 'owner_uploads_limit' | 'spool_full' | 'spool_too_large';

  constructor(scope: 'owner' | 'instance' | 'receive', message: string) {
    super(scope === 'owner' ? 429 : scope === 'instance' ? 503 : 413, message, scope === 'receive' ? {} : { 'retry-after': '10' });
    this.code = scope === 'owner' ? 'owner_uploads_limit' : scope === 'instance' ? 'spool_full' : 'spool_too_large';
  }
}

/** One receive's count against the budget: `reach` as bytes arrive, `release` once they are in the bucket or gone. */
export interface SpoolMeter {
  /** Counts the receive as holding `bytes` in all (never less than before); throws `SpoolFullError` past a bound. */
  reach(bytes: number): void;
  release(): void;
}

/**
 * A pass-through that counts what is received: past `maxBytes` it fails with `tooLarge(maxBytes)`, past a bound of
 * `spool` with its `SpoolFullError`; `onChunk` sees each chunk let through (a digest, say).
 */
export function receiveMeter(maxBytes: number, tooLarge: (maxBytes: number) => Error, spool?: SpoolMeter, onChunk?: (chunk: Buffer) => void): Transform & { readonly received: number } {
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > maxBytes) return done(tooLarge(maxBytes));
      try {
        spool?.reach(received);
      } catch (error) {
        return done(error as Error);
      }
      onChunk?.(chunk);
      done(null, chunk);
    },
  });
  return Object.defineProperty(meter, 'received', { get: () => received }) as Transform & { readonly received: number };
}

/**
 * What is being received onto an instance's disk, counted in all and per share: a share is named by the caller
 * (the principal receiving, one person's across every project they have), the repository's owner without one.
 */
export class SpoolBudget {
  readonly #bounds: SpoolBounds;
  readonly #owners = new Map<string, number>();
  #total = 0;

  constructor(bounds: SpoolBounds) {
    this.#bounds = bounds;
  }

  /** Bytes being received now, in all. */
  get heldBytes(): number {
    return this.#total;
  }

  /**
   * Refuses a receive announced as `bytes` that would not fit now (429, 503; 413 past a bound by itself), taking
   * nothing: what is announced is counted only as it arrives, or a client announcing gigabytes and sending nothing
   * would hold them for free.
   */
  refuseUnfit(owner: string, bytes: number): void {
    this.#refuseLarger(bytes);
    this.#refuseMore(owner, bytes);
  }

  #refuseLarger(bytes: number): void {
    const bound = Math.min(this.#bounds.perOwnerBytes, this.#bounds.totalBytes);
    if (bytes > bound) throw new SpoolFullError('receive', `What is being received is larger than this server holds at once for one caller (${formatBytes(bound)}).`);
  }

  open(owner: string): SpoolMeter {
    let counted = 0;
    let released = false;
    return {
      reach: (bytes) => {
        const more = bytes - counted;
        if (more <= 0 || released) return;
        this.#refuseLarger(bytes);
        this.#take(owner, more);
        counted = bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#give(owner, counted);
      },
    };
  }

  #take(owner: string, bytes: number): void {
    this.#refuseMore(owner, bytes);
    this.#owners.set(owner, (this.#owners.get(owner) ?? 0) + bytes);
    this.#total += bytes;
  }

  #refuseMore(owner: string, bytes: number): void {
    const held = this.#owners.get(owner) ?? 0;
    if (held + bytes > this.#bounds.perOwnerBytes) {
      throw new SpoolFullError(
        'owner',
        `${owner}'s pushes, LFS uploads and imports being received hold ${formatBytes(held)} of the ${formatBytes(this.#bounds.perOwnerBytes)} they may hold at once; retry when one of them has finished.`,
      );
    }
    if (this.#total + bytes > this.#bounds.totalBytes) {
      throw new SpoolFullError('instance', `This server is receiving as many pushes, LFS uploads and imports as its disk allows (${formatBytes(this.#bounds.totalBytes)}); retry shortly.`);
    }
  }

  #give(owner: string, bytes: number): void {
    const held = (this.#owners.get(owner) ?? 0) - bytes;
    if (held > 0) this.#owners.set(owner, held);
    else this.#owners.delete(owner);
    this.#total -= bytes;
  }
}
