// The per-repository maintenance lease (`maintenance/lease.json`): a maintainer changes a repository's pack
// set, checkpoints or log only while it holds it, so two compactions of one repository never overlap, whatever
// the number of maintainer instances. Taken and renewed by compare-and-swap; a holder that died loses it when
// it expires.
import { randomUUID } from 'node:crypto';
import type { ETag, ObjectStore } from '../object-store/object-store.ts';
import { encodeJson, Fields, SCHEMA_VERSION } from '../repo-store/json-fields.ts';
import { maintenanceLeaseKey } from '../repo-store/layout.ts';
import type { RepoPath } from '../repo-store/repo-path.ts';

export interface LeaseRecord {
  /** Random per acquisition: tells a holder its own lease from a later one of the same host. */
  readonly holder: string;
  readonly host: string;
  readonly operation: string;
  readonly expiresAt: string;
}

export interface LeaseOptions {
  readonly store: ObjectStore;
  readonly repo: RepoPath;
  readonly host: string;
  readonly operation: string;
  /** How long the lease holds without renewal. The holder renews it every third of this. */
  readonly ttlMs: number;
  /** Called once when a renewal finds that someone else holds the lease now. */
  readonly onLost?: () => void;
  readonly now?: () => Date;
}

export function decodeLease(key: string, bytes: Uint8Array): LeaseRecord {
  const f = Fields.parse(key, bytes);
  return { holder: f.string('holder'), host: f.string('host'), operation: f.string('operation'), expiresAt: f.string('expiresAt') };
}

/** The current lease on `repo`, if one is held and not expired. */
export async function readLease(store: ObjectStore, repo: RepoPath, now: Date = new Date()): Promise<LeaseRecord | undefined> {
  const key = maintenanceLeaseKey(repo);
  const got = await store.get(key);
  if (got?.kind !== 'object') return undefined;
  const lease = decodeLease(key, got.body);
  return Date.parse(lease.expiresAt) > now.getTime() ? lease : undefined;
}

/** A held lease. `lost` turns true when a renewal finds another holder (the work must stop publishing). */
export class Lease {
  readonly record: LeaseRecord;
  readonly #options: LeaseOptions;
  #etag: ETag;
  #timer: NodeJS.Timeout | undefined;
  #lost = false;

  private constructor(options: LeaseOptions, record: LeaseRecord, etag: ETag) {
    this.#options = options;
    this.record = record;
    this.#etag = etag;
    this.#timer = setInterval(() => void this.renew().catch(() => {}), Math.max(1, Math.floor(options.ttlMs / 3)));
    this.#timer.unref();
  }

  /** Takes the lease, or answers the current holder's record when someone else holds it. */
  static async acquire(options: LeaseOptions): Promise<Lease | LeaseRecord> {
    const { store, repo } = options;
    const key = maintenanceLeaseKey(repo);
    const now = options.now ?? (() => new Date());
    for (let attempt = 0; attempt < 4; attempt++) {
      const record = leaseRecord(options, randomUUID(), now());
      const body = encodeJson({ schema: SCHEMA_VERSION, ...record });
      const created = await store.put(key, body, { ifNoneMatch: '*', contentType: 'application/json' });
      if (created.kind === 'written') return new Lease(options, record, created.etag);
      const current = await store.get(key);
      if (current?.kind !== 'object') continue; // released in between: try the create again
      const held = decodeLease(key, current.body);
      if (Date.parse(held.expiresAt) > now().getTime()) return held;
      // Expired: whoever swaps it first takes it over.
      const taken = await store.put(key, body, { ifMatch: current.etag, contentType: 'application/json' });
      if (taken.kind === 'written') return new Lease(options, record, taken.etag);
    }
    const held = await readLease(store, repo, now());
    if (held) return held;
    throw new Error(`could not take the maintenance lease of ${repo.full}`);
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** Extends the lease by its TTL; marks it lost when someone else holds it now. */
  async renew(): Promise<void> {
    if (this.#lost) return;
    const now = this.#options.now ?? (() => new Date());
    const record = leaseRecord(this.#options, this.record.holder, now());
    const put = await this.#options.store.put(maintenanceLeaseKey(this.#options.repo), encodeJson({ schema: SCHEMA_VERSION, ...record }), {
      ifMatch: this.#etag,
      contentType: 'application/json',
    });
    if (put.kind === 'written') this.#etag = put.etag;
    else {
      this.#lost = true;
      this.#options.onLost?.();
    }
  }

  /** Gives the lease up (expired at once), unless it was lost. */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#lost) return;
    this.#lost = true;
    const now = this.#options.now ?? (() => new Date());
    const expired = { ...this.record, expiresAt: now().toISOString() };
    await this.#options.store.put(maintenanceLeaseKey(this.#options.repo), encodeJson({ schema: SCHEMA_VERSION, ...expired, released: true }), {
      ifMatch: this.#etag,
      contentType: 'application/json',
    });
  }
}

function leaseRecord(options: LeaseOptions, holder: string, now: Date): LeaseRecord {
  return { holder, host: options.host, operation: options.operation, expiresAt: new Date(now.getTime() + options.ttlMs).toISOString() };
}
