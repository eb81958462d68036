import type { ObjectStore, PutOptions, PutResult } from '../src/object-store/object-store.ts';
import { listAll } from '../src/object-store/list-all.ts';

/** How a tenant's commits reach the bucket: within a second (async), or before the commit is acknowledged (sync). */
export type Durability = 'async' | 'sync';

/** A connection token as cw-db keeps it: only its SHA-256. */
export interface TokenGrant {
  sha256: string;
  readOnly: boolean;
  /** Epoch milliseconds after which it is refused; absent: it does not expire. */
  expiresAt?: number;
}

/** Where a new tenant's data came from: another tenant as it was at a time (point-in-time restore). */
export interface RestoreSource {
  tenant: string;
  at: number;
}

/** The limits a database asked for (the Database's `spec.limits`); what it leaves out is cw-db's default. */
export interface RequestedLimits {
  statementTimeoutMs?: number;
  maxSizeBytes?: number;
  rowsReadPerDay?: number;
  rowsWrittenPerDay?: number;
}

/**
 * What cw-db knows of a tenant besides its data, kept in the bucket (`tenants/<tenant>.json`) so that a cw-db on
 * an empty disk knows which databases to restore and whose tokens to accept.
 */
export interface TenantMeta {
  tenant: string;
  createdAt: number;
  durability: Durability;
  tokens: TokenGrant[];
  /** Whose share it uses (`DesiredTenant.project`: the project's account on the platform); absent (created before cw-db knew it): a share of its own. */
  project?: string;
  restoredFrom?: RestoreSource;
  limits?: RequestedLimits;
  /** The last in-place restore, by the request that asked for it: the same request again answers this, once. */
  lastInPlaceRestore?: { request: string; restoredTo: number; undoPoint: number };
  /**
   * A copy (`restoredFrom`) not made yet: set with the metadata, cleared once the copy's base snapshot is in the
   * bucket. Whoever opens a database still marked (a takeover, a restart, the creation asked again) makes the copy
   * again: what the bucket holds under its id is not it (review-174 R2). Records written before may also carry the
   * epoch the copy was begun under, which nothing reads.
   */
  creating?: { restoreFrom: RestoreSource };
}

/** The usage counters, saved beside the metadata now and then so a restart does not reset them. */
export interface StoredUsage {
  rowsRead: number;
  rowsWritten: number;
  lastWriteAt: number | null;
  /** The counts of one UTC day (absent in usage saved before the daily quotas): the quotas count from these. */
  today?: DayUsage;
  /** A write failed on the size quota and none succeeded since (the LimitReached condition's SizeQuotaReached). */
  sizeQuotaHit?: boolean;
}

/** Rows read and written during one UTC day (`day`: YYYY-MM-DD). */
export interface DayUsage {
  day: string;
  rowsRead: number;
  rowsWritten: number;
}

/** A record as read, with its etag (what a compare-and-swap write names). */
export interface Versioned<T> {
  readonly value: T;
  readonly etag: string;
}

/** The condition of a record's write: over this etag, only where none is (`null`), or none (`undefined`). */
export type WriteOver = string | null | undefined;

const META_PREFIX = 'tenants/';

/** The bucket keys of cw-db's own records (the data's replicas live under `replicas/`, replication/). */
export const tenantKeys = {
  meta: (tenant: string) => `${META_PREFIX}${tenant}.json`,
  usage: (tenant: string) => `${META_PREFIX}${tenant}.usage.json`,
  replicaPrefix: 'replicas/',
};

/** Reads and writes tenants' metadata and usage in the bucket. */
export class TenantMetaStore {
  readonly #store: ObjectStore;

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  async list(): Promise<Versioned<TenantMeta>[]> {
    const metas: Versioned<TenantMeta>[] = [];
    for await (const object of listAll(this.#store, META_PREFIX)) {
      if (!object.key.endsWith('.json') || object.key.endsWith('.usage.json')) continue;
      const meta = await this.#version<TenantMeta>(object.key);
      if (meta) metas.push(meta);
    }
    return metas;
  }

  /** The tenants' names, from the listing alone (read every few seconds by each replica of several). */
  async names(): Promise<string[]> {
    return [...(await this.etags()).keys()];
  }

  /** Every tenant's metadata etag, by name, from one listing (a replica re-reads only the ones that changed). */
  async etags(): Promise<Map<string, string>> {
    const etags = new Map<string, string>();
    for await (const object of listAll(this.#store, META_PREFIX)) {
      if (object.key.endsWith('.json') && !object.key.endsWith('.usage.json')) etags.set(object.key.slice(META_PREFIX.length, -'.json'.length), object.etag);
    }
    return etags;
  }

  async get(tenant: string): Promise<TenantMeta | undefined> {
    return (await this.read(tenant))?.value;
  }

  read(tenant: string): Promise<Versioned<TenantMeta> | undefined> {
    return this.#version<TenantMeta>(tenantKeys.meta(tenant));
  }

  /** Writes the metadata, over `over` (fenced-records.ts); `precondition-failed`: another write came first. */
  put(meta: TenantMeta, over?: WriteOver): Promise<PutResult> {
    return this.#store.put(tenantKeys.meta(meta.tenant), JSON.stringify(meta), { ...condition(over), contentType: 'application/json' });
  }

  readUsage(tenant: string): Promise<Versioned<StoredUsage> | undefined> {
    return this.#version<StoredUsage>(tenantKeys.usage(tenant));
  }

  putUsage(tenant: string, usage: StoredUsage, over?: WriteOver): Promise<PutResult> {
    return this.#store.put(tenantKeys.usage(tenant), JSON.stringify(usage), { ...condition(over), contentType: 'application/json' });
  }

  /** Removes the tenant's records; the metadata last, so a crash midway leaves a tenant a retried delete finds. */
  async delete(tenant: string): Promise<void> {
    await this.#store.delete(tenantKeys.usage(tenant));
    await this.#store.delete(tenantKeys.meta(tenant));
  }

  async #version<T>(key: string): Promise<Versioned<T> | undefined> {
    const got = await this.#store.get(key);
    if (got?.kind !== 'object') return undefined;
    return { value: JSON.parse(Buffer.from(got.body).toString('utf8')) as T, etag: got.etag };
  }
}

function condition(over: WriteOver): Pick<PutOptions, 'ifMatch' | 'ifNoneMatch'> {
  if (over === undefined) return {};
  return over === null ? { ifNoneMatch: '*' } : { ifMatch: over };
}
