import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ObjectStore } from '../object-store/object-store.ts';

/** The first bytes of every sealed object: the format, so a later one can be told apart. */
const MAGIC = Buffer.from('cwsealed1\n');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** AES-256: the key is exactly this long. */
export const SEALING_KEY_BYTES = 32;

/** A sealed object that does not open: a wrong key, a truncated or altered object, or one moved to another key. */
export class UnsealError extends Error {
  override readonly name = 'UnsealError';
}

/**
 * Objects encrypted at rest in a bucket with AES-256-GCM under one key (from one Secret), the object's key as
 * associated data, so an object copied under another name does not open. Private keys of certificates live
 * here rather than in one Secret each: 10,000 host names are 10,000 small objects, not 10,000 Secrets in etcd.
 */
export class SealedStore {
  readonly #store: ObjectStore;
  readonly #key: Buffer;

  constructor(store: ObjectStore, key: Uint8Array) {
    if (key.length !== SEALING_KEY_BYTES) throw new Error(`the sealing key must be ${SEALING_KEY_BYTES} bytes, not ${key.length}`);
    this.#store = store;
    this.#key = Buffer.from(key);
  }

  /** Writes `value` (JSON) sealed under `key`; `ifNoneMatch: '*'` writes it only if no object has the key. Answers whether it was written. */
  async put(key: string, value: unknown, options: { readonly ifNoneMatch?: '*' } = {}): Promise<boolean> {
    const result = await this.#store.put(key, this.seal(key, Buffer.from(JSON.stringify(value))), { ...options, contentType: 'application/octet-stream' });
    return result.kind === 'written';
  }

  /** The value sealed under `key`, or `undefined` when there is none; throws {@link UnsealError} when it does not open. */
  async get<T>(key: string): Promise<T | undefined> {
    const result = await this.#store.get(key);
    if (result?.kind !== 'object') return undefined;
    return JSON.parse(this.open(key, result.body).toString('utf8')) as T;
  }

  delete(key: string): Promise<void> {
    return this.#store.delete(key);
  }

  /** Every key under `prefix`, all pages. */
  async keys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let startAfter: string | undefined;
    do {
      const page = await this.#store.list(prefix, startAfter ? { startAfter } : {});
      keys.push(...page.items.map((item) => item.key));
      startAfter = page.next;
    } while (startAfter);
    return keys;
  }

  seal(key: string, plaintext: Uint8Array): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(key));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]);
  }

  open(key: string, sealed: Uint8Array): Buffer {
    const bytes = Buffer.from(sealed);
    if (bytes.length < MAGIC.length + IV_BYTES + TAG_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new UnsealError(`${key} is not a sealed object`);
    const iv = bytes.subarray(MAGIC.length, MAGIC.length + IV_BYTES);
    const tag = bytes.subarray(MAGIC.length + IV_BYTES, MAGIC.length + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(key));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(bytes.subarray(MAGIC.length + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new UnsealError(`${key} does not open with this sealing key (another key, or the object was altered)`);
    }
  }
}
