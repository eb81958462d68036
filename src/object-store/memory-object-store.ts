// An in-process ObjectStore with S3's conditional semantics, for unit tests and for simulations that need
// exact request counts without a server.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ChecksumMismatchError,
  PRECONDITION_FAILED,
  type ETag,
  type GetOptions,
  type GetResult,
  type ListOptions,
  type ListPage,
  type ObjectInfo,
  type ObjectStore,
  type ObjectStream,
  type PrefixListOptions,
  type PrefixPage,
  type PutBody,
  type PutOptions,
  type PutResult,
} from './object-store.ts';
import { bodyBytes } from './put-body.ts';

interface Stored {
  body: Uint8Array;
  etag: ETag;
  lastModified: Date;
}

const MAX_PAGE = 1000;
const CHUNK = 64 * 1024;

/**
 * Objects in a Map. Like S3 the etag is the quoted MD5 of the body, so rewriting identical bytes gives the same
 * etag (callers that CAS must make every version's bytes distinct, as they must on S3). Each call yields to
 * the event loop before it touches the map, so concurrent callers interleave as they would against a server,
 * and each conditional check-and-write is atomic.
 */
export class MemoryObjectStore implements ObjectStore {
  readonly #objects = new Map<string, Stored>();
  readonly #now: () => Date;

  /** `now` stamps each write's `lastModified` (tests of grace periods pass a clock they move). */
  constructor(options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult | undefined> {
    await tick();
    const found = this.#objects.get(key);
    if (!found) return undefined;
    if (options.ifNoneMatch !== undefined && options.ifNoneMatch === found.etag) return { kind: 'not-modified', etag: found.etag };
    return { kind: 'object', body: new Uint8Array(found.body), etag: found.etag };
  }

  async getStream(key: string): Promise<ObjectStream | undefined> {
    await tick();
    const found = this.#objects.get(key);
    if (!found) return undefined;
    // Chunks of 64 KiB, so readers meet a stream of several chunks as they would from a server.
    const { body, etag } = found;
    const chunks = Array.from({ length: Math.ceil(body.byteLength / CHUNK) }, (_, i) => Buffer.from(body.slice(i * CHUNK, (i + 1) * CHUNK)));
    return { body: Readable.from(chunks), size: body.byteLength, etag };
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    await tick();
    const found = this.#objects.get(key);
    return found && { key, etag: found.etag, size: found.body.byteLength, lastModified: found.lastModified };
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<PutResult> {
    const bytes = new Uint8Array(await bodyBytes(body));
    if (options.sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== options.sha256) {
      throw new ChecksumMismatchError(key);
    }
    await tick();
    const current = this.#objects.get(key);
    if (options.ifNoneMatch === '*' && current) return PRECONDITION_FAILED;
    if (options.ifMatch !== undefined && current?.etag !== options.ifMatch) return PRECONDITION_FAILED;
    const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    this.#objects.set(key, { body: bytes, etag, lastModified: this.#now() });
    return { kind: 'written', etag };
  }

  async delete(key: string): Promise<void> {
    await tick();
    this.#objects.delete(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListPage> {
    await tick();
    const limit = Math.min(options.limit ?? MAX_PAGE, MAX_PAGE);
    const after = options.startAfter;
    const keys = [...this.#objects.keys()].filter((key) => key.startsWith(prefix) && (after === undefined || compareKeys(key, after) > 0)).sort(compareKeys);
    const page = keys.slice(0, limit);
    const items = page.map((key) => {
      const stored = this.#objects.get(key) as Stored;
      return { key, etag: stored.etag, size: stored.body.byteLength, lastModified: stored.lastModified };
    });
    const last = page.at(-1);
    return keys.length > limit && last !== undefined ? { items, next: last } : { items };
  }

  async listPrefixes(prefix: string, options: PrefixListOptions = {}): Promise<PrefixPage> {
    await tick();
    const limit = Math.min(options.limit ?? MAX_PAGE, MAX_PAGE);
    const after = options.after;
    const found = new Set<string>();
    for (const key of this.#objects.keys()) {
      if (!key.startsWith(prefix)) continue;
      const slash = key.indexOf('/', prefix.length);
      if (slash >= 0) found.add(key.slice(0, slash + 1));
    }
    const all = [...found].filter((p) => after === undefined || compareKeys(p, after) > 0).sort(compareKeys);
    const prefixes = all.slice(0, limit);
    const last = prefixes.at(-1);
    // The token is the last prefix answered: the next page starts after it.
    return all.length > limit && last !== undefined ? { prefixes, next: last } : { prefixes };
  }

  /** Every key, sorted (for tests). */
  keys(): string[] {
    return [...this.#objects.keys()].sort(compareKeys);
  }
}

// S3 orders keys by their UTF-8 bytes, which differs from JavaScript's UTF-16 order outside the BMP.
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
