import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Registry } from 'prom-client';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import type { Informer } from '../../src/kube/index.ts';
import type { Logger } from '../../src/logging/log.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { SealedStore } from '../../src/tls/sealed-store.ts';
import type { MayServe, PrepareName } from './certificate-index.ts';
import { ContextCache } from './context-cache.ts';
import { http01Answerer } from './http01-answers.ts';
import type { HttpsConfig } from './https-config.ts';
import { startHttpsListener, type HttpsListener } from './https-listener.ts';
import { sealedCertificateLoader } from './sealed-certificates.ts';
import { ServedCertificates } from './served-certificates.ts';
import { tlsMetrics } from './tls-metrics.ts';

export interface RuntimeTlsOptions {
  /** The TlsCertificates (an informer, synced before `listen`). */
  readonly certificates: Informer<TlsCertificate>;
  /** The host admission rule on this replica's caches. */
  readonly mayServe: MayServe;
  /** Reads what `mayServe` needs to decide a host its caches have not listed yet (`NamesOnDemand.prepare`). */
  readonly prepareName?: PrepareName;
  readonly registry: Registry;
  readonly log: Logger;
}

/**
 * cw-runtime's part of TLS: the HTTP-01 answers on the entry point (always: the operator may be validating a
 * name whatever terminates TLS), and, when configured, the HTTPS listener serving certificates by SNI.
 */
export class RuntimeTls {
  readonly #options: RuntimeTlsOptions;
  readonly #answer: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  #listener: HttpsListener | undefined;
  #served: ServedCertificates | undefined;

  constructor(options: RuntimeTlsOptions) {
    this.#options = options;
    this.#answer = http01Answerer({ certificates: options.certificates, mayServe: options.mayServe, ...(options.prepareName ? { prepareName: options.prepareName } : {}) });
  }

  /** The entry point's `answer` hook: an HTTP-01 challenge is answered before routing. */
  readonly answer = (req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> => this.#answer(req, res);

  /** Whether the HTTPS listener serves a certificate for `host` now (false without a listener): what a redirect to HTTPS needs. */
  readonly hasCertificate = (host: string): boolean => this.#served?.lookup(host) !== undefined;

  get port(): number | undefined {
    return this.#listener?.address.port;
  }

  /** Starts the HTTPS listener on `config`, its requests and upgrades served by `serve` (the engine's entry point). */
  async listen(config: HttpsConfig, store: ObjectStore, serve: (server: Http2SecureServer) => void): Promise<void> {
    const { certificates, mayServe, prepareName, registry, log } = this.#options;
    const tlsLog = log.child({ component: 'tls' });
    const metricsSource = { cacheSize: () => cache.size, certificates: () => served.certificates };
    const metrics = tlsMetrics(registry, metricsSource);
    const cache = new ContextCache({
      max: config.cacheSize,
      load: sealedCertificateLoader(new SealedStore(store, config.sealingKey)),
      metrics,
      // The reference only: never the certificate's key or its object's bytes.
      onError: (ref, err) => tlsLog.warn('cannot load a certificate; its names get no certificate until it loads', { namespace: ref.namespace, name: ref.name, serial: ref.serial, err }),
    });
    const served = (this.#served = new ServedCertificates({ certificates, mayServe, cache, ...(prepareName ? { prepareName } : {}) }));
    this.#listener = await startHttpsListener({ port: config.port, host: config.host, SNICallback: served.SNICallback, known: (name) => served.lookup(name) !== undefined, serve, metrics });
    tlsLog.info('serving apps over HTTPS', { port: this.#listener.address.port, certificates: served.certificates, cacheSize: config.cacheSize });
  }

  /** Stops accepting connections; `drained` resolves once they end (after `closeAll`, at the latest). */
  close(): { drained: Promise<void>; closeAll(): void } {
    const listener = this.#listener;
    if (!listener) return { drained: Promise.resolve(), closeAll: () => {} };
    return { drained: listener.close(), closeAll: () => listener.closeAll() };
  }
}
