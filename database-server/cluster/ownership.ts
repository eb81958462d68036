// Which databases this cw-db replica owns, kept in the bucket: a lease per database naming its holder and epoch,
// a heartbeat per replica keeping all its leases alive at once, takeovers of leases whose holder stopped beating,
// and placement by rendezvous hashing over the live replicas (README.md, "Several replicas").
import { performance } from 'node:perf_hooks';
import { inParallel } from '../../src/collections/in-parallel.ts';
import type { Logger } from '../../src/logging/log.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { Fencing } from '../replication-port.ts';
import { EpochFloors } from './epoch-floors.ts';
import { expired, holderDeadline, sight, type Sighting } from './lease-timing.ts';
import { LeaseConfirmations } from './lease-confirmations.ts';
import { LeaseStore, type Lease, type LeaseVersion, type ReplicaIdentity, type ReplicaProcess } from './lease-store.ts';
import { placeable, standingFailures, withOpenFailure } from './open-failures.ts';
import { MemberStore, type Heartbeat } from './member-store.ts';
import { preferredReplica } from './placement.ts';
import { DurabilityUnconfirmedError, LEASE_TAKEN, LEASE_UNREAD } from '../durability-unconfirmed.ts';

/** What the ownership drives: the databases that exist, and opening and closing the ones this replica owns. */
export interface OwnershipHooks {
  /** The databases that exist (their metadata in the bucket). */
  tenants(): Promise<string[]>;
  /**
   * Opens a database this replica now owns under `fencing`, restored from the bucket; false: it no longer exists.
   * `resumed`: the new lease was written over this very process's lease of that epoch, which it let expire and
   * nobody wrote since, so the local files `drop(…, 'expired')` kept are the database's latest state: opened from them.
   */
  adopt(tenant: string, fencing: Fencing, resumed?: number): Promise<boolean>;
  /**
   * Closes a database this replica no longer owns: `handover` and `stop` ship what is pending first (the lease is
   * still held); `lost` and `expired` ship nothing (a successor may already be writing). `expired` (the deadline
   * passed, nobody known to have taken it) keeps the local files for a `resumed` adopt; the others remove them.
   */
  drop(tenant: string, reason: 'handover' | 'stop' | 'lost' | 'expired'): Promise<void>;
  /** The files an `expired` drop kept are of no use any more: another process wrote the lease, or it is gone. */
  discard(tenant: string): Promise<void>;
  /** The highest epoch the bucket holds anything of the database under (0: none): a lease written anew goes above it. */
  highestEpoch(tenant: string): Promise<number>;
}

export interface OwnershipOptions {
  store: ObjectStore;
  self: ReplicaIdentity;
  /** How long a holder that stopped beating keeps its leases (default 15 s); beats every third of it. */
  leaseMs: number;
  hooks: OwnershipHooks;
  log: Logger;
  /** Monotonic milliseconds (default `performance.now`). */
  clock?: () => number;
  /**
   * Where {@link Ownership.confirm} reads leases (default `store`): main.ts passes the data path's store, so that a
   * synchronous write load's reads, one per batch, queue with its uploads and never ahead of the heartbeat.
   */
  confirmStore?: ObjectStore;
}

/**
 * Where a request for a database goes; `unknown`: no lease at all (no such database, or not taken yet); `absent`:
 * neither a lease nor metadata in a listing of the bucket made after the request (no such database, nothing read).
 */
export type Route =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly holder: ReplicaIdentity }
  | { readonly kind: 'unowned' }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'absent' };

/**
 * Bucket reads a second for databases the last round did not list (one created a moment ago on another replica):
 * past it, a request waits for the next round's listing instead, so a flood of made-up database ids costs the
 * bucket nothing beyond the rounds, not two reads a request.
 */
const UNLISTED_READS_PER_SECOND = 20;

const HANDOVERS_PER_ROUND = 4;
/**
 * Lease writes a round makes at once: a replica taking a dead one's thousands of databases over wrote one lease
 * after another, and the takeovers, not the lease time, set how long they stayed down (the scale bench).
 */
const ACQUIRES_AT_ONCE = 16;

/** A lease that names this process; `ready` settles when the database serves; `since`: when its write had landed. */
interface Held {
  version: LeaseVersion;
  ready: Promise<boolean>;
  since: number;
}

/** The databases whose leases this replica holds, and the loop that keeps, takes and hands them over. */
export class Ownership {
  readonly #options: OwnershipOptions;
  readonly #leases: LeaseStore;
  readonly #floors: EpochFloors;
  readonly #members: MemberStore;
  readonly #confirmations: LeaseConfirmations;
  readonly #clock: () => number;
  readonly #held = new Map<string, Held>();
  /**
   * Held, but being closed to be released, until its lease is free: its requests wait for the next owner
   * (DATABASE_MOVING), and a stop waits for it (a handover under way is not left half done).
   */
  readonly #releases = new Map<string, Promise<void>>();
  /**
   * Databases this process held until its deadline passed (their files kept), with the etag of the lease it held
   * (while the lease still has that etag, nobody else has taken them) and when that write had landed.
   */
  readonly #expired = new Map<string, { etag: string; since: number }>();
  /** Held databases whose metadata the listings have not shown, since when (given up after a lease: deleted). */
  readonly #undescribedSince = new Map<string, number>();
  /** The latest version read of every lease, and since when it was in sight. */
  readonly #known = new Map<string, LeaseVersion>();
  /** The databases with metadata or a lease in the bucket, as the last round listed them. */
  #listed = new Set<string>();
  /** Requests waiting for a round to list the bucket after they asked: since when each waits. */
  readonly #listingWaiters = new Set<{ since: number; resolve: (listed: boolean) => void }>();
  /** The unlisted reads made in the current second. */
  #unlistedReads = { second: -1, count: 0 };
  /**
   * Every replica's latest heartbeat read, since when its etag was in sight, and when a listing last showed that
   * etag: a holder is judged by what the last listing showed, never by the time passed since (a round that runs
   * long, taking many databases over, has not looked meanwhile, while the holder may have beaten).
   */
  readonly #heartbeats = new Map<string, { heartbeat: Heartbeat; sighting: Sighting; seenAt: number; firstSeen: number }>();
  /** When the heartbeats were last listed (the time the listing was sent: what it shows was current at or after it). */
  #listedAt: number;
  /** Since which listing a lease's holder (by nonce) was seen without its heartbeat. */
  readonly #unseenHolders = new Map<string, number>();
  /** Since when a database was seen without a live holder (a fallback lets anyone take it after a lease). */
  readonly #freeSince = new Map<string, number>();
  /** A round could not list the bucket since the last one that did: what was seen before proves nothing now. */
  #blind = false;
  #deadline = -Infinity;
  #beats = 0;
  #ticking: Promise<void> | undefined;
  #beating: Promise<void> | undefined;
  #roundTimer: NodeJS.Timeout | undefined;
  #beatTimers: NodeJS.Timeout[] = [];
  #stopped = false;

  constructor(options: OwnershipOptions) {
    this.#options = options;
    this.#leases = new LeaseStore(options.store);
    this.#floors = new EpochFloors(options.store);
    this.#members = new MemberStore(options.store);
    this.#confirmations = new LeaseConfirmations(options.confirmStore ?? options.store);
    this.#clock = options.clock ?? (() => performance.now());
    this.#listedAt = this.#clock();
  }

  /**
   * Beats and looks around once (so the first requests are routed), then both every third of the lease, on
   * separate timers: a round slow on a listing or a takeover never delays the heartbeat that keeps every lease.
   */
  async start(): Promise<void> {
    await this.tick();
    const every = this.#roundEveryMs();
    const round = setInterval(() => void this.#roundOnce().catch((err: unknown) => this.#options.log.warn('a lease round failed', { err })), every);
    const beat = setInterval(() => void this.#beatOnce(), every);
    // The deadline is watched apart from both: a beat stuck on the bucket must not keep a lost lease serving.
    const watch = setInterval(() => this.#checkDeadline(), Math.min(250, every));
    for (const timer of [round, beat, watch]) timer.unref();
    this.#roundTimer = round;
    this.#beatTimers = [beat, watch];
  }

  /** A beat, then a round: read the leases and heartbeats that changed, drop what is lost, take what is free, hand some over. */
  async tick(): Promise<void> {
    await this.#beatOnce();
    await this.#roundOnce();
  }

  /** Never two rounds at once. */
  #roundOnce(): Promise<void> {
    this.#ticking ??= this.#round().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  /** Never two beats at once. */
  #beatOnce(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  /**
   * Whether this process may still write for `tenant` (ship, acknowledge a synchronous commit); with `epoch`, under
   * that lease: one lost and taken back is another epoch, whose owner listed the bucket without what the old one was
   * still uploading.
   */
  surelyHeld(tenant: string, epoch?: number): boolean {
    const held = this.#held.get(tenant);
    return held !== undefined && (epoch === undefined || held.version.lease.epoch === epoch) && this.#clock() < this.#deadline;
  }

  /**
   * Whether a synchronous commit of `tenant` whose segment has landed may be acknowledged: surely held (under
   * `epoch`), and the lease, read after that, still the very version this process wrote (lease-confirmations.ts:
   * the deadline alone trusts a clock that stood still while the VM was paused, review-164 F5). Seen written by
   * another, the database is lost at once, as a round would, and the commit refused as maybe lost
   * (`DurabilityUnconfirmedError`, as when the lease cannot be read).
   */
  async confirm(tenant: string, epoch?: number): Promise<boolean> {
    const held = this.#held.get(tenant);
    if (held === undefined || !this.surelyHeld(tenant, epoch)) return false;
    const read = await this.#confirmations.read(tenant).catch((err: unknown) => {
      throw new DurabilityUnconfirmedError(LEASE_UNREAD, { cause: err });
    });
    if (this.#held.get(tenant) !== held) return false;
    if (read?.etag !== held.version.etag) {
      this.#lose(tenant, read ? 'its lease was taken' : 'its lease was deleted');
      throw new DurabilityUnconfirmedError(LEASE_TAKEN);
    }
    return this.surelyHeld(tenant, epoch);
  }

  /** What the owner of `tenant` writes under (its lease epoch, and the check before every upload: that epoch's lease). */
  fencing(tenant: string, epoch: number): Fencing {
    return {
      epoch,
      guard: () => {
        if (!this.surelyHeld(tenant, epoch)) throw new LeaseLostError(tenant);
      },
    };
  }

  /**
   * Where a request for `tenant` goes: served here, forwarded to the live holder, or nobody owns it right now. A
   * lease not known alive from the last round is read again (a database created a moment ago on another replica);
   * `budgeted` (a request anyone may send), only within {@link UNLISTED_READS_PER_SECOND} for ids the last round did
   * not list at all, the rest waiting for the next listing.
   */
  async route(tenant: string, options: { budgeted?: boolean } = {}): Promise<Route> {
    if (this.#releases.has(tenant)) return { kind: 'unowned' };
    if (this.#held.has(tenant)) return { kind: 'local' };
    const known = this.#known.get(tenant);
    if (known?.lease.holder && known.lease.holder.nonce !== this.#options.self.nonce && this.#alive(known.lease.holder)) return { kind: 'forward', holder: known.lease.holder };
    // Anyone may send any id: one the last round did not list is read from the bucket only within a budget; past
    // it, an id the next listing does not show either is answered from that listing. Should no listing come (the
    // bucket failing), it is read after all: never a 404 for a database that exists.
    if (options.budgeted && known === undefined && !this.#listed.has(tenant) && !this.#spendUnlistedRead()) {
      const listed = await this.#nextListing();
      if (listed && !this.#listed.has(tenant) && !this.#known.has(tenant) && !this.#held.has(tenant)) return { kind: 'absent' };
      return this.route(tenant);
    }
    const fresh = await this.#leases.read(tenant);
    if (this.#held.has(tenant) && !this.#releases.has(tenant)) return { kind: 'local' };
    if (fresh === undefined) return { kind: 'unknown' };
    const holder = fresh.lease.holder;
    if (holder && holder.nonce !== this.#options.self.nonce && this.#alive(holder)) return { kind: 'forward', holder };
    return { kind: 'unowned' };
  }

  #spendUnlistedRead(): boolean {
    const second = Math.floor(this.#clock() / 1000);
    if (this.#unlistedReads.second !== second) this.#unlistedReads = { second, count: 0 };
    return ++this.#unlistedReads.count <= UNLISTED_READS_PER_SECOND;
  }

  /**
   * Resolves `true` once a round that began after this call has listed the bucket; `false` after two rounds' time
   * without one (a bucket failing) or when stopping.
   */
  #nextListing(): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = { since: this.#clock(), resolve: (listed: boolean) => done(listed) };
      const timer = setTimeout(() => done(false), 2 * this.#roundEveryMs());
      const done = (listed: boolean) => {
        clearTimeout(timer);
        this.#listingWaiters.delete(waiter);
        resolve(listed);
      };
      this.#listingWaiters.add(waiter);
    });
  }

  #roundEveryMs(): number {
    return Math.max(50, Math.floor(this.#options.leaseMs / 3));
  }

  /** The other replicas alive now (by their heartbeats). */
  peers(): ReplicaIdentity[] {
    return [...this.#heartbeats.values()].map((h) => h.heartbeat.replica).filter((r) => r.nonce !== this.#options.self.nonce && this.#alive(r));
  }

  /** The live replica that should own a database created now (the admin API forwards the creation to it). */
  placeNew(tenant: string): ReplicaIdentity {
    const name = preferredReplica(tenant, this.#liveNames());
    return this.#heartbeats.get(name ?? '')?.heartbeat.replica ?? this.#options.self;
  }

  /**
   * Takes the lease of a database being created here: absent (above the floor a deleted database of the same name
   * left, epoch-floors.ts), or released and not held by a live replica (its epoch + 1). Answers the fencing, or undefined when another holds it.
   */
  async claimNew(tenant: string): Promise<Fencing | undefined> {
    if (this.#clock() >= this.#deadline) return undefined;
    const current = await this.#leases.read(tenant);
    // One this process took already (a creation that failed after its claim, or whose claim's answer was lost, and
    // is tried again) is not refused for ever as another live holder's: still held here, it is the same lease;
    // given up, it is taken anew at the next epoch.
    const mine = current?.lease.holder?.nonce === this.#options.self.nonce;
    const held = this.#held.get(tenant);
    if (mine && held && held.version.lease.epoch === current?.lease.epoch) return this.fencing(tenant, held.version.lease.epoch);
    if (current?.lease.holder && !mine && this.#alive(current.lease.holder)) return undefined;
    const won = await this.#write(tenant, current);
    if (!won) return undefined;
    this.#held.set(tenant, { version: won, ready: Promise.resolve(true), since: this.#clock() });
    return this.fencing(tenant, won.lease.epoch);
  }

  /**
   * The database was deleted (or its creation here failed): its lease goes too, its epoch kept as the id's floor
   * (epoch-floors.ts), so that the epochs of an id never go back: a database created again with it outranks what the
   * deleted one's owners upload. Only a lease this process may delete goes: the very version it holds, while surely
   * held (no other replica takes it before this process's deadline); or, held here never, one no live process holds
   * (a deletion's leftover). Deleted blindly, a creation that failed after its lease lapsed deleted the lease another
   * replica had taken since, which then gave the database up as deleted, its unshipped commits with it (review-178
   * R-B). A lease left here is this process's lapsed one or another's: adopted by whoever takes it (and forgotten
   * there if the database does not exist), or served by its holder.
   */
  async forget(tenant: string): Promise<void> {
    const held = this.#held.get(tenant);
    const lapsed = this.#expired.has(tenant);
    this.#held.delete(tenant);
    this.#expired.delete(tenant);
    this.#known.delete(tenant);
    const current = await this.#leases.read(tenant);
    if (current === undefined) return;
    const holder = current.lease.holder;
    const deletable = held ? current.etag === held.version.etag && this.#clock() < this.#deadline : !lapsed && (holder === null || !this.#alive(holder));
    if (!deletable) {
      this.#options.log.info('left a lease this replica does not surely hold where it is', { tenant, epoch: current.lease.epoch, holder: holder?.name ?? null });
      return;
    }
    await this.#floors.raise(tenant, current.lease.epoch);
    await this.#leases.remove(tenant);
  }

  /**
   * A database that exists could not be opened here (a creation that found it handed over from here meanwhile):
   * its lease is released, noted as not opened here, for another replica to take it with its data.
   */
  async giveUp(tenant: string): Promise<void> {
    await this.#release(tenant, 'lost', { openFailed: true });
  }

  /** Every database whose lease this process holds, with its epoch. */
  held(): Map<string, number> {
    return new Map([...this.#held].map(([tenant, h]) => [tenant, h.version.lease.epoch]));
  }

  /** Graceful stop: ships and closes every database, releases its lease (free at once), and leaves; beating until then. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#roundTimer);
    for (const waiter of this.#listingWaiters) waiter.resolve(false);
    await this.#ticking?.catch(() => {});
    // Those being released already (a handover in the background) are waited for, not left half done.
    const tenants = new Set([...this.#held.keys(), ...this.#releases.keys()]);
    await Promise.all([...tenants].map((tenant) => this.#release(tenant, 'stop')));
    for (const timer of this.#beatTimers) clearInterval(timer);
    await this.#beating?.catch(() => {});
    await this.#members.leave(this.#options.self.name).catch(() => {});
  }

  async #round(): Promise<void> {
    if (this.#stopped) return;
    const listedAt = this.#clock();
    const [memberEtags, leaseEtags, tenants] = await Promise.all([this.#members.etags(), this.#leases.etags(), this.#options.hooks.tenants()]).catch((err: unknown) => {
      this.#blind = true;
      throw err;
    });
    // Every database with metadata or a lease, as listed: requests waiting on a listing made after they asked are
    // answered before the leases that changed are read (a round taking many over can take long).
    this.#listed = new Set([...tenants, ...leaseEtags.keys()]);
    for (const waiter of this.#listingWaiters) if (waiter.since < listedAt) waiter.resolve(true);
    await this.#readHeartbeats(memberEtags, listedAt);
    await this.#readLeases(leaseEtags);
    this.#discardOvertaken(leaseEtags, listedAt);
    this.#giveUpVanished(leaseEtags, new Set(tenants), listedAt);
    if (this.#stopped) return;
    const now = this.#clock();
    const live = this.#liveNames();
    // Those still under way count: a handover of a large database takes minutes, and never more than a few at once.
    let handovers = this.#releases.size;
    const toTake: [string, LeaseVersion | undefined][] = [];
    for (const tenant of tenants) {
      const held = this.#held.get(tenant);
      // Being released: its lease is freed at the end, and only then is it anyone's (this replica's too) to take.
      if (this.#releases.has(tenant)) continue;
      const known = this.#known.get(tenant);
      // Placed among the live replicas but those that could not open it.
      const options = placeable(
        live,
        standingFailures(known?.lease, (p) => this.#alive(p)),
      );
      if (held) {
        // A few handovers a round, to a replica seen alive for a whole lease: placement moves slowly and never flaps.
        const preferred = preferredReplica(tenant, options);
        if (handovers < HANDOVERS_PER_ROUND && preferred !== undefined && preferred !== this.#options.self.name && this.#settled(preferred)) {
          handovers++;
          // In the background: shipping a large database must not hold up the next round.
          void held.ready.then(() => this.#release(tenant, 'handover')).catch((err: unknown) => this.#options.log.warn('a handover failed', { tenant, err }));
        }
        continue;
      }
      const holder = known?.lease.holder;
      // A lease naming this very process that it does not hold was lost at its deadline and taken by nobody: it
      // is free (the same process takes it again at the next epoch, from the files it kept: #acquire).
      const mineLost = holder?.nonce === this.#options.self.nonce;
      if (holder && !mineLost && this.#alive(holder)) {
        this.#freeSince.delete(tenant);
        continue;
      }
      const freeSince = this.#freeSince.get(tenant) ?? now;
      this.#freeSince.set(tenant, freeSince);
      const candidates = options.filter((name) => name !== holder?.name || name === this.#options.self.name);
      // The preferred replica takes it; anyone does once it has been free for a lease (views of who is alive differ for a moment).
      if (preferredReplica(tenant, candidates) === this.#options.self.name || now - freeSince >= this.#options.leaseMs) toTake.push([tenant, known]);
    }
    await inParallel(toTake, ([tenant, known]) => this.#acquire(tenant, known), ACQUIRES_AT_ONCE);
  }

  async #beat(): Promise<void> {
    const sentAt = this.#clock();
    const heartbeat: Heartbeat = { replica: this.#options.self, beats: ++this.#beats, at: new Date().toISOString() };
    try {
      await this.#members.beat(heartbeat);
      // A beat that lands after the deadline renews nothing already lost: another replica may have taken it since.
      this.#checkDeadline();
      this.#deadline = Math.max(this.#deadline, holderDeadline(sentAt, this.#options.leaseMs));
    } catch (err) {
      this.#options.log.warn('the heartbeat failed', { err });
    }
    this.#checkDeadline();
  }

  async #readHeartbeats(etags: Map<string, string>, listedAt: number): Promise<void> {
    this.#listedAt = listedAt;
    // Back from listings that failed (the bucket unreachable from here, so most likely from the others too): every
    // replica gets a whole lease from now to beat again before anything of it is taken, as if seen for the first
    // time. A replica that kept its databases' files when its leases expired in the same outage then takes them
    // back itself, with what it committed meanwhile, instead of this one restoring them without it. Only later
    // takeovers: never two holders (that is the holder's deadline, on its own clock).
    if (this.#blind) {
      this.#blind = false;
      for (const seen of this.#heartbeats.values()) seen.sighting = { etag: seen.sighting.etag, since: listedAt };
      this.#unseenHolders.clear();
      this.#freeSince.clear();
    }
    for (const name of this.#heartbeats.keys()) if (!etags.has(name)) this.#heartbeats.delete(name);
    for (const [name, etag] of etags) {
      const previous = this.#heartbeats.get(name);
      if (previous?.sighting.etag === etag) {
        previous.seenAt = listedAt;
        continue;
      }
      const read = await this.#members.read(name);
      if (!read) continue;
      // Seen once read, not when the round began: reads one after another on a slow bucket take seconds, and a
      // heartbeat sent during them, counted from before it was sent, would expire here before its holder's deadline.
      const seen = this.#clock();
      this.#unseenHolders.delete(read.heartbeat.replica.nonce);
      const sameProcess = previous?.heartbeat.replica.nonce === read.heartbeat.replica.nonce;
      const sighting = sight(previous?.sighting, read.etag, seen);
      this.#heartbeats.set(name, { heartbeat: read.heartbeat, sighting, seenAt: Math.max(listedAt, sighting.since), firstSeen: sameProcess ? previous.firstSeen : seen });
    }
  }

  async #readLeases(etags: Map<string, string>): Promise<void> {
    for (const tenant of this.#known.keys()) if (!etags.has(tenant)) this.#known.delete(tenant);
    for (const [tenant, etag] of etags) {
      if (this.#known.get(tenant)?.etag === etag) continue;
      const read = await this.#leases.read(tenant);
      if (!read) continue;
      this.#known.set(tenant, read);
      const held = this.#held.get(tenant);
      // Written by someone else since our write: whatever happened, it is not ours any more.
      if (held && held.version.etag !== read.etag) this.#lose(tenant, 'its lease was taken');
    }
  }

  /** Takes the lease (CAS on the version read, epoch + 1) and opens the database in the background. */
  async #acquire(tenant: string, known: LeaseVersion | undefined): Promise<void> {
    if (this.#clock() >= this.#deadline) return;
    // Resumed from the local files only when the CAS goes over the very lease version this process wrote and let
    // expire (an etag names one write: any other process's takeover, release or deletion since changed it, and
    // every takeover bumps the epoch, so the local file never outranks what another owner wrote). Nobody else
    // uploaded under another epoch meanwhile, so the bucket holds nothing newer than those files: what this process
    // shipped came from them. Its own stale uploads at the old epoch are cut by the takeover record, as any.
    const resumed = known !== undefined && this.#expired.get(tenant)?.etag === known.etag ? known.lease.epoch : undefined;
    const won = await this.#write(tenant, known);
    if (!won) return;
    this.#expired.delete(tenant);
    this.#freeSince.delete(tenant);
    const fencing = this.fencing(tenant, won.lease.epoch);
    const held: Held = { version: won, ready: Promise.resolve(true), since: this.#clock() };
    this.#held.set(tenant, held);
    this.#options.log.info('took a database over', { tenant, epoch: won.lease.epoch, from: known?.lease.holder?.name ?? null });
    held.ready = this.#options.hooks.adopt(tenant, fencing, resumed).then(
      async (exists) => {
        if (!exists && this.#held.get(tenant) === held) await this.forget(tenant);
        return exists;
      },
      async (err: unknown) => {
        this.#options.log.error('opening a database taken over failed; releasing it', { tenant, err });
        if (this.#held.get(tenant) === held) await this.#release(tenant, 'lost', { openFailed: true });
        return false;
      },
    );
  }

  /** Writes a lease naming this process at the next epoch over `current` (CAS); undefined when another write came first. */
  async #write(tenant: string, current: LeaseVersion | undefined): Promise<LeaseVersion | undefined> {
    const failures = standingFailures(current?.lease, (p) => this.#alive(p));
    const lease: Lease = {
      tenant,
      // No lease: a creation, above the epochs of a deleted database of the same id; or a lease gone while the
      // database is there (a lease prefix cleaned by hand, a crash between a deletion's lease and its metadata),
      // above every epoch its data was written under: at epoch 1 its new owner's snapshots never won a restore
      // over them (review-164, under F2).
      epoch: (current?.lease.epoch ?? (await this.#epochFloor(tenant))) + 1,
      holder: this.#options.self,
      renewedAt: new Date().toISOString(),
      renewals: 0,
      ...(failures.length > 0 ? { failedToOpen: failures } : {}),
    };
    const won = await this.#leases.write(lease, current?.etag);
    if (won) this.#known.set(tenant, won);
    return won;
  }

  /** The epoch a lease written where none is must go above: a deleted database's, and what the bucket holds. */
  async #epochFloor(tenant: string): Promise<number> {
    const [floor, written] = await Promise.all([this.#floors.read(tenant), this.#options.hooks.highestEpoch(tenant)]);
    return Math.max(floor, written);
  }

  /** Closes the database (shipping first, unless lost), then frees its lease for the next owner; one under way is that one. */
  #release(tenant: string, reason: 'handover' | 'stop' | 'lost', options: { openFailed?: boolean } = {}): Promise<void> {
    const underWay = this.#releases.get(tenant);
    if (underWay) return underWay;
    const held = this.#held.get(tenant);
    if (!held) return Promise.resolve();
    const release = this.#closeAndFree(tenant, held, reason, options.openFailed ?? false).finally(() => this.#releases.delete(tenant));
    this.#releases.set(tenant, release);
    return release;
  }

  async #closeAndFree(tenant: string, held: Held, reason: 'handover' | 'stop' | 'lost', openFailed: boolean): Promise<void> {
    await this.#options.hooks.drop(tenant, reason).catch((err: unknown) => this.#options.log.warn('closing a database failed', { tenant, err }));
    // Lost meanwhile (the deadline passed while shipping): nothing is left to release.
    if (this.#held.get(tenant) !== held) return;
    this.#held.delete(tenant);
    const free: Lease = { ...held.version.lease, holder: null, renewedAt: new Date().toISOString(), renewals: held.version.lease.renewals + 1 };
    // Could not open it: noted in the lease, so that placement passes this process over for it.
    const released = openFailed ? withOpenFailure(free, this.#options.self) : free;
    const written = await this.#leases.write(released, held.version.etag).catch(() => undefined);
    if (written) this.#known.set(tenant, written);
    this.#options.log.info('released a database', { tenant, reason, epoch: held.version.lease.epoch });
  }

  /**
   * Gives up what this replica holds but the bucket no longer describes: a lease missing from a listing made after
   * its write (deleted by another process: an owner paused in the middle of deleting the database resumed), or a
   * database whose metadata the listings have not shown for a whole lease (deleted, its lease left). Nothing else
   * would: the rounds walk the databases with metadata, and a lease missing from a listing is only forgotten.
   */
  #giveUpVanished(leases: Map<string, string>, described: Set<string>, listedAt: number): void {
    for (const tenant of this.#undescribedSince.keys()) if (!this.#held.has(tenant)) this.#undescribedSince.delete(tenant);
    for (const [tenant, held] of this.#held) {
      // A lease written after the listing began (a creation, a takeover) may not be in it yet.
      if (held.since >= listedAt || this.#releases.has(tenant)) continue;
      if (!leases.has(tenant)) {
        this.#lose(tenant, 'its lease was deleted');
        continue;
      }
      if (described.has(tenant)) {
        this.#undescribedSince.delete(tenant);
        continue;
      }
      const since = this.#undescribedSince.get(tenant) ?? listedAt;
      this.#undescribedSince.set(tenant, since);
      if (listedAt - since >= this.#options.leaseMs) void this.#release(tenant, 'lost');
    }
  }

  #checkDeadline(): void {
    if (this.#held.size === 0 || this.#clock() < this.#deadline) return;
    for (const [tenant, held] of this.#held) {
      // Being released (a handover, a stop): its lease is not left naming this process, so nothing is kept.
      if (!this.#releases.has(tenant)) this.#expired.set(tenant, { etag: held.version.etag, since: held.since });
      this.#lose(tenant, 'the heartbeat could not be renewed in time', this.#releases.has(tenant) ? 'lost' : 'expired');
    }
  }

  /** Forgets the files an expiry kept once the lease was written by another process (or by nobody: deleted). */
  #discardOvertaken(leases: Map<string, string>, listedAt: number): void {
    for (const [tenant, expired] of this.#expired) {
      // A lease written after the listing began (a creation) may not be in it yet.
      if (leases.get(tenant) === expired.etag || expired.since >= listedAt) continue;
      this.#expired.delete(tenant);
      this.#options.hooks.discard(tenant).catch((err: unknown) => this.#options.log.warn('removing the files of a database taken elsewhere failed', { tenant, err }));
    }
  }

  /** Stops serving at once, shipping nothing: a successor may take over from now on. */
  #lose(tenant: string, why: string, reason: 'lost' | 'expired' = 'lost'): void {
    if (!this.#held.delete(tenant)) return;
    this.#options.log.warn('lost a database', { tenant, why });
    this.#options.hooks.drop(tenant, reason).catch((err: unknown) => this.#options.log.warn('closing a lost database failed', { tenant, err }));
  }

  /**
   * A holder is alive while the heartbeat of that very process (same nonce) keeps changing. A lease of an earlier
   * process of this replica's own name is not: a StatefulSet runs one pod of a name at a time, so that process is
   * gone, and a restarted pod takes its databases back without waiting out the lease.
   */
  #alive(holder: ReplicaProcess): boolean {
    if (holder.nonce === this.#options.self.nonce) return true;
    if (holder.name === this.#options.self.name) return false;
    const seen = this.#heartbeats.get(holder.name);
    if (seen !== undefined && seen.heartbeat.replica.nonce === holder.nonce) return !expired(seen.sighting, seen.seenAt, this.#options.leaseMs);
    // A holder whose heartbeat this replica has not read (it started a moment ago, or this one did) counts as alive
    // until listings a whole lease apart have shown no heartbeat of it: never less than a heartbeat it could not see.
    const since = this.#unseenHolders.get(holder.nonce) ?? this.#listedAt;
    this.#unseenHolders.set(holder.nonce, since);
    return this.#listedAt - since < this.#options.leaseMs;
  }

  /** A replica (this very process of it) seen beating for at least a whole lease: a handover target. */
  #settled(name: string): boolean {
    const seen = this.#heartbeats.get(name);
    return seen !== undefined && this.#alive(seen.heartbeat.replica) && this.#clock() - seen.firstSeen >= this.#options.leaseMs;
  }

  #liveNames(): string[] {
    const names = [...this.#heartbeats.values()].filter((h) => this.#alive(h.heartbeat.replica)).map((h) => h.heartbeat.replica.name);
    return names.includes(this.#options.self.name) ? names : [...names, this.#options.self.name];
  }
}

/** The lease of a database is no longer surely held by this process: nothing more is written or acknowledged for it. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(tenant: string) {
    super(`the lease of ${tenant} is no longer held by this replica`);
  }
}
