import { Counter, Gauge, type Registry } from 'prom-client';

/** How a TLS handshake on the HTTPS listener ended. */
export type HandshakeOutcome = 'full' | 'resumed' | 'unknown_name' | 'no_server_name' | 'failed';

export interface TlsMetrics {
  handshake(outcome: HandshakeOutcome): void;
  /** A certificate loaded from the bucket into the cache: ahead of its first handshake (`preload`) or during one (`handshake`). */
  load(trigger: 'preload' | 'handshake', result: 'loaded' | 'error'): void;
}

/** The HTTPS listener's metrics; `cacheSize` and `certificates` are read at scrape time. */
export function tlsMetrics(registry: Registry, read: { cacheSize: () => number; certificates: () => number }): TlsMetrics {
  const registers = [registry];
  const handshakes = new Counter({
    name: 'cloudwright_runtime_tls_handshakes_total',
    help: 'TLS handshakes on the HTTPS listener by outcome: full, resumed (a session ticket), unknown_name (no certificate the name may get), no_server_name (no SNI), failed (any other client error)',
    labelNames: ['outcome'],
    registers,
  });
  const loads = new Counter({
    name: 'cloudwright_runtime_tls_certificate_loads_total',
    help: 'Certificates read from the bucket into the context cache, by trigger (preload: a new serial seen; handshake: a miss) and result',
    labelNames: ['trigger', 'result'],
    registers,
  });
  new Gauge({
    name: 'cloudwright_runtime_tls_context_cache_size',
    help: 'TLS contexts (certificate and key) held in memory',
    registers,
    collect() {
      this.set(read.cacheSize());
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_tls_certificates',
    help: 'TlsCertificates whose status names a certificate to serve',
    registers,
    collect() {
      this.set(read.certificates());
    },
  });
  return {
    handshake: (outcome) => handshakes.inc({ outcome }),
    load: (trigger, result) => loads.inc({ trigger, result }),
  };
}

/** Metrics nobody reads (unit tests). */
export const noTlsMetrics: TlsMetrics = { handshake: () => {}, load: () => {} };
