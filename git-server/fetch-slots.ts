// Fetches and clones running at once. Each is a `git upload-pack` whose pack-objects takes a core while it counts and
// compresses objects: unbounded, one tenant's many concurrent clones would starve every other tenant's git of the
// instance's CPU. So many run at once per caller (one person's share across their projects), per repository owner
// (many callers of one popular repository leave the rest to others) and on the instance. A fetch past a share waits
// its turn, the caller with the fewest running first (one waiting long, first of all), rather than failing at once (a CI fleet cloning in parallel gets slower, not red);
// one that waited the bound is refused, 429 for a share of its own, 503 for the instance's, with `Retry-After`.
import { OwnerShareError } from './owner-share-error.ts';

export interface FetchBounds {
  readonly perCaller: number;
  readonly perOwner: number;
  readonly total: number;
  /** How long a fetch waits for its turn before it is refused. */
  readonly waitMs: number;
}

/** A fetch's place: the caller (the principal: one person's across their projects) and the repository's owner. */
interface Claim {
  readonly caller: string;
  readonly owner: string;
}

interface Waiter extends Claim {
  /** When it began to wait (the clock's ms). */
  readonly since: number;
  readonly granted: (release: () => void) => void;
}

/** How many of its share a caller may have waiting besides those running: past it, one more is refused at once. */
const WAITING_SHARES = 4;

/**
 * Half the instance for one caller, so a CI fleet on one token clones 8 at a time; three quarters for one owner, so
 * a popular repository leaves room to the rest. The wait stays under a load balancer's usual idle timeout (60 s),
 * which would otherwise cut the silent request first and answer a bare 504 instead of ours.
 */
export const DEFAULT_FETCH_BOUNDS: FetchBounds = Object.freeze({ perCaller: 8, perOwner: 12, total: 16, waitMs: 30_000 });

/** What the slots are for, as their refusals name them: git fetches by default, LFS downloads in lfs-routes.ts. */
export interface SlotKind {
  readonly what: string;
  readonly codes: { readonly owner: string; readonly instance: string };
}

const FETCHES: SlotKind = { what: 'fetches', codes: { owner: 'owner_fetches_limit', instance: 'fetches_busy' } };

export class FetchSlots {
  readonly #bounds: FetchBounds;
  readonly #byCaller = new Map<string, number>();
  readonly #byOwner = new Map<string, number>();
  #held = 0;
  readonly #waiting: Waiter[] = [];
  readonly #now: () => number;

  readonly #kind: SlotKind;

  constructor(bounds: FetchBounds = DEFAULT_FETCH_BOUNDS, now: () => number = () => performance.now(), kind: SlotKind = FETCHES) {
    this.#bounds = bounds;
    this.#now = now;
    this.#kind = kind;
  }

  /** Fetches running now, and waiting for their turn. */
  get counts(): { readonly running: number; readonly waiting: number } {
    return { running: this.#held, waiting: this.#waiting.length };
  }

  /**
   * A turn for `claim`: at once when its shares and the instance have room and nobody is waiting for the same
   * room, else once they do (in turn: see `#inTurn`). Resolves to the release, called once the fetch has ended. Rejects
   * past `waitMs`, or when `signal` aborts (the client left while it waited), and at once for a caller with four times
   * its share waiting already (what it has waiting cannot all run within the wait anyway, and each waiter costs every
   * turn's ordering).
   */
  take(claim: Claim, signal?: AbortSignal): Promise<() => void> {
    // A client gone before it asked takes no turn (and no place in line) it would hand back unused.
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('the request was abandoned before its turn'));
    if (this.#fits(claim) && !this.#waiting.some((w) => this.#competes(w, claim))) return Promise.resolve(this.#grant(claim));
    if (this.#waiting.filter((w) => w.caller === claim.caller).length >= WAITING_SHARES * this.#bounds.perCaller) {
      const { perCaller } = this.#bounds;
      return Promise.reject(
        new OwnerShareError(
          'owner',
          this.#kind.codes,
          `${claim.caller} has ${WAITING_SHARES * perCaller} ${this.#kind.what} waiting for their turn besides those running, the most one caller may; retry later.`,
          10,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const leave = (error: Error) => {
        const at = this.#waiting.indexOf(waiter);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
        // Those held back behind it may fit now.
        this.#wake();
      };
      const onAbort = () => leave(signal?.reason instanceof Error ? signal.reason : new Error('the fetch was abandoned while it waited'));
      const waiter: Waiter = {
        ...claim,
        since: this.#now(),
        granted: (release) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const timer = setTimeout(() => leave(this.#refusal(claim)), this.#bounds.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Whether `claim` has room now in its caller's share, its owner's and the instance's. */
  #fits({ caller, owner }: Claim): boolean {
    const { perCaller, perOwner, total } = this.#bounds;
    return this.#held < total && (this.#byCaller.get(caller) ?? 0) < perCaller && (this.#byOwner.get(owner) ?? 0) < perOwner;
  }

  /**
   * Whether `claim` would take the last room of a share `waiter`, ahead of it, waits for (and would have room in
   * otherwise): then it waits behind; otherwise it passes (one person's fetch of a quiet repository does not wait
   * behind their fetch of a busy one). Never the instance's: a release in any share frees one of those too, and the
   * first waiter in turn that fits takes it.
   */
  #competes(waiter: Claim, claim: Claim): boolean {
    const { perCaller, perOwner } = this.#bounds;
    const callerRoom = (key: string) => (this.#byCaller.get(key) ?? 0) < perCaller;
    const ownerRoom = (key: string) => (this.#byOwner.get(key) ?? 0) < perOwner;
    if (waiter.caller === claim.caller && (this.#byCaller.get(claim.caller) ?? 0) + 1 >= perCaller && ownerRoom(waiter.owner)) return true;
    return waiter.owner === claim.owner && (this.#byOwner.get(claim.owner) ?? 0) + 1 >= perOwner && callerRoom(waiter.caller);
  }

  #grant(claim: Claim): () => void {
    this.#held++;
    this.#byCaller.set(claim.caller, (this.#byCaller.get(claim.caller) ?? 0) + 1);
    this.#byOwner.set(claim.owner, (this.#byOwner.get(claim.owner) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      decrement(this.#byCaller, claim.caller);
      decrement(this.#byOwner, claim.owner);
      this.#wake();
    };
  }

  /**
   * Grants the waiters that fit now, one at a time in turn order; one that does not fit holds back only those after
   * it competing for the same room.
   */
  #wake(): void {
    // Full, nobody fits: a release or a waiter leaving (thousands timing out together) costs no ordering.
    if (this.#held >= this.#bounds.total) return;
    for (let granted = true; granted;) {
      granted = false;
      const blocked: Claim[] = [];
      for (const waiter of this.#inTurn()) {
        if (this.#fits(waiter) && !blocked.some((b) => this.#competes(b, waiter))) {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          waiter.granted(this.#grant(waiter));
          granted = true;
          break;
        }
        blocked.push(waiter);
      }
    }
  }

  /**
   * The waiters in the order they take freed room: those that waited half the bound first, oldest first; then the
   * caller with the fewest fetches running, then the owner with the fewest, oldest among equals. Oldest alone let two
   * tenants cloning in loops, whose next fetches always queued before anyone else's, take every slot either freed: a
   * third tenant's one clone waited 10 to 16 s. Counts alone let a caller running more wait out the bound behind
   * others running fewer, a red CI job where the order of arrival would have got to it.
   */
  #inTurn(): Waiter[] {
    const running = (counts: Map<string, number>, key: string) => counts.get(key) ?? 0;
    const late = this.#now() - this.#bounds.waitMs / 2;
    return this.#waiting.toSorted((a, b) => {
      const aLate = a.since <= late;
      if (aLate !== b.since <= late) return aLate ? -1 : 1;
      if (aLate) return a.since - b.since;
      return running(this.#byCaller, a.caller) - running(this.#byCaller, b.caller) || running(this.#byOwner, a.owner) - running(this.#byOwner, b.owner);
    });
  }

  #refusal({ caller, owner }: Claim): OwnerShareError<string> {
    const { perCaller, perOwner, total, waitMs } = this.#bounds;
    const seconds = Math.round(waitMs / 1000);
    const retry = 10;
    if ((this.#byCaller.get(caller) ?? 0) >= perCaller) {
      return new OwnerShareError(
        'owner',
        this.#kind.codes,
        `${caller} has ${perCaller} ${this.#kind.what} running at once, the most one caller may; this one waited ${seconds} s for its turn. Retry shortly.`,
        retry,
      );
    }
    if ((this.#byOwner.get(owner) ?? 0) >= perOwner) {
      return new OwnerShareError(
        'owner',
        this.#kind.codes,
        `The repositories of ${owner} have ${perOwner} ${this.#kind.what} running at once, the most one owner's may; this one waited ${seconds} s for its turn. Retry shortly.`,
        retry,
      );
    }
    return new OwnerShareError('instance', this.#kind.codes, `This server runs ${total} ${this.#kind.what} at once and this one waited ${seconds} s for its turn; retry shortly.`, retry);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
