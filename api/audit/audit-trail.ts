// Projects' audit trails in the platform's bucket: one object per entry under `audit/<project>/`, newest
// first (audit-entry.ts). Writing needs no coordination between API replicas; reading lists keys and fetches
// only the bodies of the page it returns; pruning deletes by age and by count.
import { inParallel } from '../../src/collections/in-parallel.ts';
import { listAllPrefixes } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { AUDIT_PREFIX, entryKey, keyAfter, parseEntryKey, projectPrefix, timeOfEntryId, type AuditEntry, type ResourceType } from './audit-entry.ts';

export interface AuditRetention {
  /** Entries older than this are pruned. */
  readonly maxAgeMs: number;
  /** A project keeps at most this many entries; older ones past the count are pruned. */
  readonly maxEntries: number;
}

/** 90 days and 10,000 entries per project: docs/audit.md. */
export const DEFAULT_AUDIT_RETENTION: AuditRetention = Object.freeze({ maxAgeMs: 90 * 86_400_000, maxEntries: 10_000 });

export interface AuditPageQuery {
  /** Continue after this entry id (the previous page's `next`). */
  readonly after?: string;
  readonly limit: number;
  readonly resourceType?: ResourceType;
  /** Entries made before this time are left out (and end the listing). */
  readonly notBefore?: Date;
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  /** Set when more entries may follow: the `after` of the next page. */
  readonly next?: string;
}

/** Keys a filtered read walks at most before it answers what it found (with a cursor to go on). */
const MAX_KEYS_SCANNED = 5000;
/** Bodies fetched, or keys deleted, at once. */
const PARALLEL = 16;

export class AuditTrail {
  readonly #store: ObjectStore;
  readonly retention: AuditRetention;

  constructor(store: ObjectStore, retention: AuditRetention = DEFAULT_AUDIT_RETENTION) {
    this.#store = store;
    this.retention = retention;
  }

  /** Stores the entry (again, with its outcome, under the same key). Throws when the bucket did not take it. */
  async record(entry: AuditEntry): Promise<void> {
    await this.#store.put(entryKey(entry), JSON.stringify(entry), { contentType: 'application/json' });
  }

  /** Takes back an entry recorded for a request that turned out not to be the project's (a create that lost). */
  async withdraw(entry: AuditEntry): Promise<void> {
    await this.#store.delete(entryKey(entry));
  }

  /** One page of a project's entries, newest first. */
  async page(projectId: string, query: AuditPageQuery): Promise<AuditPage> {
    const prefix = projectPrefix(projectId);
    const keys: string[] = [];
    let startAfter = query.after === undefined ? undefined : keyAfter(projectId, query.after);
    let scanned = 0;
    let next: string | undefined;
    listing: for (;;) {
      const page = await this.#store.list(prefix, startAfter === undefined ? {} : { startAfter });
      for (const item of page.items) {
        const parsed = parseEntryKey(item.key);
        if (!parsed) continue;
        scanned += 1;
        if (query.notBefore && timeOfEntryId(parsed.id) < query.notBefore) break listing;
        if (query.resourceType === undefined || parsed.type === query.resourceType) keys.push(item.key);
        if (keys.length === query.limit || scanned === MAX_KEYS_SCANNED) {
          next = parsed.id;
          break listing;
        }
      }
      if (page.next === undefined) break;
      startAfter = page.next;
    }
    const bodies = await inParallel(keys, (key) => this.#store.get(key), PARALLEL);
    const entries = bodies.flatMap((got) => (got?.kind === 'object' ? [JSON.parse(Buffer.from(got.body).toString('utf8')) as AuditEntry] : []));
    return next === undefined ? { entries } : { entries, next };
  }

  /**
   * Deletes, in every project's trail (deleted projects' included), the entries older than the retention's
   * age and those past its count. Replicas may prune at once: deleting a deleted key succeeds.
   */
  async prune(now: Date): Promise<number> {
    const cutoff = now.getTime() - this.retention.maxAgeMs;
    let deleted = 0;
    for await (const prefix of listAllPrefixes(this.#store, AUDIT_PREFIX)) {
      const doomed: string[] = [];
      let kept = 0;
      let startAfter: string | undefined;
      do {
        const page = await this.#store.list(prefix, startAfter === undefined ? {} : { startAfter });
        for (const item of page.items) {
          const parsed = parseEntryKey(item.key);
          if (!parsed) continue;
          if (kept < this.retention.maxEntries && timeOfEntryId(parsed.id).getTime() >= cutoff) kept += 1;
          else doomed.push(item.key);
        }
        startAfter = page.next;
      } while (startAfter !== undefined);
      await inParallel(doomed, (key) => this.#store.delete(key), PARALLEL);
      deleted += doomed.length;
    }
    return deleted;
  }
}
