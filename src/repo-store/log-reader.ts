// Reading log entries. Entries are immutable within an incarnation, so decoded ones are kept in an LRU keyed
// by (repoId, seq), bounded by their size (an entry may hold 10,000 ref updates), and not read twice while kept.
import type { ETag, ObjectStore } from '../object-store/object-store.ts';
import { CorruptObjectError } from './errors.ts';
import { logKey } from './layout.ts';
import { decodeLogEntry, type LogEntry } from './log-entry.ts';
import { Lru, TENANT_ENTRY_SHARE } from './lru.ts';
import type { RepoPath } from './repo-path.ts';

/** What a log slot holds: an entry of this incarnation, a leftover of another one, or nothing. */
export type LogSlot = { readonly kind: 'entry'; readonly entry: LogEntry } | { readonly kind: 'foreign'; readonly etag: ETag } | undefined;

export class LogReader {
  readonly #store: ObjectStore;
  readonly #cache: Lru<LogEntry>;

  /** `capacityBytes`: what the decoded entries kept may take together, counted as twice their encoded size. */
  constructor(store: ObjectStore, capacityBytes: number) {
    this.#store = store;
    // A tenant's huge entries are read again rather than pushing everyone's out.
    this.#cache = new Lru(capacityBytes, { maxEntryWeight: capacityBytes * TENANT_ENTRY_SHARE });
  }

  /** The slot at `seq`, read as incarnation `repoId` (whether or not a manifest covers it yet). */
  async slot(repo: RepoPath, repoId: string, seq: number): Promise<LogSlot> {
    const cached = this.#cache.get(`${repoId}/${seq}`);
    if (cached) return { kind: 'entry', entry: cached };
    const key = logKey(repo, seq);
    const got = await this.#store.get(key);
    if (!got) return undefined;
    if (got.kind !== 'object') throw new Error(`${key}: unexpected ${got.kind}`);
    const entry = decodeLogEntry(key, got.body);
    if (entry.repoId !== repoId) return { kind: 'foreign', etag: got.etag };
    if (entry.seq !== seq) throw new CorruptObjectError(key, `holds seq ${entry.seq}`);
    const frozen = Object.freeze(entry);
    this.#cache.set(`${repoId}/${seq}`, frozen, 2 * got.body.byteLength);
    return { kind: 'entry', entry: frozen };
  }

  /** The committed entry at `seq` (the caller checked that a manifest covers it): it must be there. */
  async committed(repo: RepoPath, repoId: string, seq: number): Promise<LogEntry> {
    const slot = await this.slot(repo, repoId, seq);
    if (slot?.kind !== 'entry') throw new CorruptObjectError(logKey(repo, seq), slot ? 'belongs to another incarnation' : 'is missing, but the manifest covers it');
    return slot.entry;
  }

  /** Committed entries `from..to` (inclusive), in order, read `concurrency` at a time. */
  async range(repo: RepoPath, repoId: string, from: number, to: number, concurrency = 16): Promise<LogEntry[]> {
    const seqs = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
    const out: LogEntry[] = new Array(seqs.length);
    let next = 0;
    const worker = async () => {
      while (next < seqs.length) {
        const i = next++;
        out[i] = await this.committed(repo, repoId, seqs[i] as number);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, seqs.length) }, worker));
    return out;
  }
}
