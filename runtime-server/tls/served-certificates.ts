import type { SecureContext } from 'node:tls';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { objectKey } from '../../src/kube/index.ts';
import { CertificateIndex, type CertificateRef, type MayServe, type PrepareName } from './certificate-index.ts';
import type { ContextCache } from './context-cache.ts';

export interface ServedCertificatesOptions {
  /** The TlsCertificates of every namespace (an informer). */
  readonly certificates: { onChange(handler: (obj: TlsCertificate) => void): unknown; get(key: string): TlsCertificate | undefined; list(): readonly TlsCertificate[] };
  readonly mayServe: MayServe;
  /** A name the caches cannot decide yet is read first (a replica taking traffic before its lists: `NamesOnDemand`). */
  readonly prepareName?: PrepareName;
  readonly cache: ContextCache;
}

/**
 * The certificates this replica serves by SNI: the index of the TlsCertificates' statuses feeding the bounded
 * context cache, each new serial loaded as soon as the index learns it, so the common handshake is answered from
 * memory. A name nobody may be served a certificate for gets none: the handshake fails, and nothing else happens
 * (certificates are ordered by the operator for active host names, never because of a handshake).
 */
export class ServedCertificates {
  readonly #index: CertificateIndex;
  readonly #mayServe: MayServe;
  readonly #prepareName: PrepareName | undefined;
  readonly #cache: ContextCache;

  constructor(options: ServedCertificatesOptions) {
    this.#index = new CertificateIndex((key) => options.certificates.get(key));
    this.#mayServe = options.mayServe;
    this.#prepareName = options.prepareName;
    this.#cache = options.cache;
    options.certificates.onChange((cert) => this.#update(objectKey(cert)));
    for (const cert of options.certificates.list()) this.#update(objectKey(cert));
  }

  /** TlsCertificates with a certificate to serve. */
  get certificates(): number {
    return this.#index.size;
  }

  /** Which certificate `serverName` gets, if any. */
  lookup(serverName: string): CertificateRef | undefined {
    return this.#index.lookup(serverName, this.#mayServe);
  }

  /** The server's `SNICallback`: from memory when held, else loaded (once) from the bucket. */
  readonly SNICallback = (serverName: string, done: (err: Error | null, context?: SecureContext) => void): void => {
    // Before the names are listed, a name some certificate has is decided on its claims as read now (a domain's
    // wildcard may not be the name's: a custom host name's claim wins); made-up names cost the apiserver nothing.
    const certified = this.#prepareName && this.#index.lookup(serverName, () => true) !== undefined;
    const reading = certified ? this.#prepareName?.(serverName.toLowerCase().replace(/\.$/, '')) : undefined;
    if (reading) {
      // A failed read: no certificate, as for a name nobody may be served.
      void reading.then(
        (mayServe) => this.#answer(this.#index.lookup(serverName, mayServe), done),
        () => done(null),
      );
      return;
    }
    this.#answer(this.lookup(serverName), done);
  };

  #answer(ref: CertificateRef | undefined, done: (err: Error | null, context?: SecureContext) => void): void {
    // No context: the server's own has no certificate, so the handshake fails with an alert.
    if (!ref) return done(null);
    const held = this.#cache.get(ref);
    if (held) return done(null, held);
    void this.#cache.fetch(ref).then((context) => done(null, context));
  }

  #update(key: string): void {
    const { serving, replaced } = this.#index.update(key);
    if (serving) void this.#cache.preload(serving, replaced);
    else if (replaced) this.#cache.forget(replaced);
  }
}
