import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';

/** One served certificate: the TlsCertificate that names it and the serial its key and chain are stored under. */
export interface CertificateRef {
  readonly namespace: string;
  readonly name: string;
  readonly serial: string;
  readonly notAfter: string;
}

/** The sealed object (and cache key) of a certificate: one per serial, never overwritten. */
export function refKey(ref: CertificateRef): string {
  return `${ref.namespace}/${ref.name}/${ref.serial}`;
}

/** Whether `namespace` may serve `host` (the host admission rule, `src/platform/host-admission.ts`). */
export type MayServe = (namespace: string, host: string) => boolean;
/**
 * Where the replica's caches have not listed the names yet (`NamesOnDemand.prepare`): reads what deciding `host`
 * needs, and answers the rule decided on that read; `undefined` when the caches decide ({@link MayServe} as given).
 */
export type PrepareName = (host: string) => Promise<MayServe> | undefined;

interface Entry {
  readonly ref: CertificateRef;
  readonly names: readonly string[];
}

/**
 * Which certificate a server name gets, from memory: the TlsCertificates' statuses (every namespace), indexed by
 * the names their served certificate covers. Kept current by `update(object key)` on each informer change, so
 * a handshake reads two map entries, never the API server. A name gets a certificate only from a namespace the
 * host admission rule lets serve it: a tenant's TlsCertificate for another project's name (its status written by
 * anyone) is never served for that name.
 */
export class CertificateIndex {
  readonly #get: (key: string) => TlsCertificate | undefined;
  readonly #byKey = new Map<string, Entry>();
  readonly #byName = new Map<string, Set<string>>();

  constructor(get: (key: string) => TlsCertificate | undefined) {
    this.#get = get;
  }

  /**
   * Re-reads the TlsCertificate `key` (`namespace/name`) and indexes what its status serves now. Answers the
   * change of serial, if any: `serving` is new to the index (to load ahead of its first handshake), `replaced`
   * is served no more (to forget).
   */
  update(key: string): { readonly serving?: CertificateRef; readonly replaced?: CertificateRef } {
    const before = this.#byKey.get(key);
    const entry = entryOf(this.#get(key));
    if (before) for (const name of before.names) this.#unindex(name, key);
    if (!entry) {
      this.#byKey.delete(key);
      return before ? { replaced: before.ref } : {};
    }
    this.#byKey.set(key, entry);
    for (const name of entry.names) {
      let keys = this.#byName.get(name);
      if (!keys) this.#byName.set(name, (keys = new Set()));
      keys.add(key);
    }
    if (before?.ref.serial === entry.ref.serial) return {};
    return { serving: entry.ref, ...(before ? { replaced: before.ref } : {}) };
  }

  /**
   * The certificate for `serverName`: one naming it exactly, else the wildcard `*.<parent>` (one label, as TLS
   * wildcards match), from a namespace `mayServe` admits for `serverName`; among several, the latest to expire. An
   * expired one only when there is nothing else: an exact name whose renewal failed gives way to a valid wildcard.
   */
  lookup(serverName: string, mayServe: MayServe, now = Date.now()): CertificateRef | undefined {
    const host = serverName.toLowerCase().replace(/\.$/, '');
    const dot = host.indexOf('.');
    const candidates = dot > 0 ? [host, `*${host.slice(dot)}`] : [host];
    let expired: CertificateRef | undefined;
    for (const name of candidates) {
      let best: CertificateRef | undefined;
      for (const key of this.#byName.get(name) ?? []) {
        const ref = this.#byKey.get(key)?.ref;
        if (!ref || (best && best.notAfter >= ref.notAfter)) continue;
        if (mayServe(ref.namespace, host)) best = ref;
      }
      if (best && !(Date.parse(best.notAfter) <= now)) return best;
      expired ??= best;
    }
    return expired;
  }

  /** How many TlsCertificates have a served certificate. */
  get size(): number {
    return this.#byKey.size;
  }

  #unindex(name: string, key: string): void {
    const keys = this.#byName.get(name);
    keys?.delete(key);
    if (keys?.size === 0) this.#byName.delete(name);
  }
}

/** What a TlsCertificate serves: nothing until its status names a certificate, nor once it is being deleted. */
function entryOf(cert: TlsCertificate | undefined): Entry | undefined {
  const status = cert?.status;
  const namespace = cert?.metadata?.namespace;
  const name = cert?.metadata?.name;
  if (!status?.serial || !status.dnsNames?.length || !namespace || !name || cert.metadata?.deletionTimestamp) return undefined;
  return {
    ref: { namespace, name, serial: status.serial, notAfter: status.notAfter ?? '' },
    names: [...new Set(status.dnsNames.map((n) => n.toLowerCase().replace(/\.$/, '')))],
  };
}
