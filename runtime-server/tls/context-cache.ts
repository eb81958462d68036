import type { SecureContext } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { refKey, type CertificateRef } from './certificate-index.ts';
import { noTlsMetrics, type TlsMetrics } from './tls-metrics.ts';

/** Default bound on the TLS contexts one replica holds (CW_RUNTIME_TLS_CACHE). */
export const DEFAULT_TLS_CACHE = 1000;

export interface ContextCacheOptions {
  /** Most contexts held; the least recently used goes first. */
  readonly max: number;
  /** Reads a certificate from storage into a context (the bucket in production); rejects when it cannot. */
  readonly load: (ref: CertificateRef) => Promise<SecureContext>;
  readonly metrics?: TlsMetrics;
  readonly onError?: (ref: CertificateRef, err: unknown) => void;
}

interface Load {
  readonly ref: CertificateRef;
  readonly trigger: 'preload' | 'handshake';
}

/**
 * The TLS contexts of served certificates, by serial, bounded (LRU): what a handshake reads synchronously.
 * Loads of one serial at once are shared; a failed load is not remembered, so the next handshake tries again.
 */
export class ContextCache {
  readonly #lru: LRUCache<string, SecureContext, Load>;

  constructor(options: ContextCacheOptions) {
    const metrics = options.metrics ?? noTlsMetrics;
    const onError = options.onError ?? (() => {});
    this.#lru = new LRUCache<string, SecureContext, Load>({
      max: options.max,
      fetchMethod: async (_key, _stale, { context: { ref, trigger } }) => {
        try {
          const context = await options.load(ref);
          metrics.load(trigger, 'loaded');
          return context;
        } catch (err) {
          metrics.load(trigger, 'error');
          onError(ref, err);
          throw err;
        }
      },
    });
  }

  get max(): number {
    return this.#lru.max;
  }

  get size(): number {
    return this.#lru.size;
  }

  /** The context of `ref` if held (and marks it recently used). */
  get(ref: CertificateRef): SecureContext | undefined {
    return this.#lru.get(refKey(ref));
  }

  has(ref: CertificateRef): boolean {
    return this.#lru.has(refKey(ref));
  }

  /** The context of `ref`, loaded when not held; `undefined` when it cannot be loaded (reported to `onError`). */
  async fetch(ref: CertificateRef, trigger: 'preload' | 'handshake' = 'handshake'): Promise<SecureContext | undefined> {
    try {
      return await this.#lru.fetch(refKey(ref), { context: { ref, trigger } });
    } catch {
      return undefined; // counted and reported by the load
    }
  }

  /**
   * Loads a serial the index has just learnt, so its first handshake finds it in memory: when there is room, or
   * when it replaces a serial that was held (a renewal of a certificate in use). Otherwise the first handshake
   * loads it, so a replica with more certificates than the bound keeps the ones in use. Answers the load, if one
   * started (it never rejects).
   */
  preload(ref: CertificateRef, replaces?: CertificateRef): Promise<SecureContext | undefined> | undefined {
    const replaced = replaces !== undefined && this.#lru.delete(refKey(replaces));
    return replaced || this.#lru.size < this.#lru.max ? this.fetch(ref, 'preload') : undefined;
  }

  /** Forgets a serial no longer served. */
  forget(ref: CertificateRef): void {
    this.#lru.delete(refKey(ref));
  }
}
