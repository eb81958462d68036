import type { SecureContext } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { refKey, type CertificateRef } from './certificate-index.ts';
import { noTlsMetrics, type TlsMetrics } from './tls-metrics.ts';

/** Default bound on the TLS contexts one replica holds (CW_RUNTIME_TLS_CACHE). */
export const DEFAULT_TLS_CACHE = 1000;

export interface ContextCacheOptions {
  /** Most contexts held, over all projects. */
  readonly max: number;
  /** Reads a certificate from storage into a context (the bucket in production); rejects when it cannot. */
  readonly load: (ref: CertificateRef) => Promise<SecureContext>;
  readonly metrics?: TlsMetrics;
  readonly onError?: (ref: CertificateRef, err: unknown) => void;
}

type Trigger = 'preload' | 'handshake';

/**
 * The TLS contexts of served certificates, by serial, bounded: what a handshake reads synchronously. Loads of
 * one serial at once are shared; a failed load is not remembered, so the next handshake tries again.
 *
 * The bound is shared fairly between projects (namespaces): when it is reached, the least recently used context
 * of the project holding the most goes. A project with thousands of certificates can fill the room others leave
 * unused, but never push out a project holding fewer than it, so its handshakes cannot make another tenant's
 * wait on the bucket.
 */
export class ContextCache {
  readonly #max: number;
  readonly #load: (ref: CertificateRef) => Promise<SecureContext>;
  readonly #metrics: TlsMetrics;
  readonly #onError: (ref: CertificateRef, err: unknown) => void;
  /** Settled contexts, one recency order per namespace. */
  readonly #held = new Map<string, LRUCache<string, SecureContext>>();
  readonly #loading = new Map<string, Promise<SecureContext | undefined>>();
  #size = 0;

  constructor(options: ContextCacheOptions) {
    this.#max = options.max;
    this.#load = options.load;
    this.#metrics = options.metrics ?? noTlsMetrics;
    this.#onError = options.onError ?? (() => {});
  }

  get max(): number {
    return this.#max;
  }

  get size(): number {
    return this.#size;
  }

  /** How many contexts `namespace` holds. */
  heldBy(namespace: string): number {
    return this.#held.get(namespace)?.size ?? 0;
  }

  /** The context of `ref` if held (and marks it recently used). */
  get(ref: CertificateRef): SecureContext | undefined {
    return this.#held.get(ref.namespace)?.get(refKey(ref));
  }

  has(ref: CertificateRef): boolean {
    return this.#held.get(ref.namespace)?.has(refKey(ref)) ?? false;
  }

  /** The context of `ref`, loaded when not held; `undefined` when it cannot be loaded (reported to `onError`). */
  fetch(ref: CertificateRef, trigger: Trigger = 'handshake'): Promise<SecureContext | undefined> {
    const held = this.get(ref);
    if (held) return Promise.resolve(held);
    const key = refKey(ref);
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = this.#loadInto(ref, trigger).finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading;
  }

  /**
   * Loads a serial the index has just learnt, so its first handshake finds it in memory: when there is room, or
   * when it replaces a serial that was held (a renewal of a certificate in use). Otherwise the first handshake
   * loads it, so a replica with more certificates than the bound keeps the ones in use. Answers the load, if one
   * started (it never rejects).
   */
  preload(ref: CertificateRef, replaces?: CertificateRef): Promise<SecureContext | undefined> | undefined {
    const replaced = replaces !== undefined && this.has(replaces);
    if (replaces) this.forget(replaces);
    return replaced || this.#size < this.#max ? this.fetch(ref, 'preload') : undefined;
  }

  /** Forgets a serial no longer served. */
  forget(ref: CertificateRef): void {
    const lru = this.#held.get(ref.namespace);
    if (lru?.delete(refKey(ref))) this.#dropped(ref.namespace, lru);
  }

  async #loadInto(ref: CertificateRef, trigger: Trigger): Promise<SecureContext | undefined> {
    let context: SecureContext;
    try {
      context = await this.#load(ref);
    } catch (err) {
      this.#metrics.load(trigger, 'error');
      this.#onError(ref, err);
      return undefined;
    }
    this.#metrics.load(trigger, 'loaded');
    let lru = this.#held.get(ref.namespace);
    if (!lru) this.#held.set(ref.namespace, (lru = new LRUCache<string, SecureContext>({ max: this.#max })));
    const before = lru.size;
    lru.set(refKey(ref), context);
    this.#size += lru.size - before;
    this.#trim(ref.namespace);
    return context;
  }

  /** Back within the bound, taking from the project holding the most (`incoming` on a tie, never its only one). */
  #trim(incoming: string): void {
    while (this.#size > this.#max) {
      const namespace = this.#largest(incoming);
      const lru = this.#held.get(namespace);
      if (!lru || lru.pop() === undefined) return;
      this.#dropped(namespace, lru);
    }
  }

  #largest(incoming: string): string {
    const own = this.heldBy(incoming);
    let largest = own > 1 ? incoming : undefined;
    let most = own > 1 ? own : 0;
    for (const [namespace, lru] of this.#held) {
      if (namespace !== incoming && lru.size > most) [largest, most] = [namespace, lru.size];
    }
    return largest ?? incoming;
  }

  #dropped(namespace: string, lru: LRUCache<string, SecureContext>): void {
    this.#size -= 1;
    if (lru.size === 0) this.#held.delete(namespace);
  }
}
