// The TLS section's figures as bench/runtime.ts prints them, with PASS/MISS against the targets of issue 39.
import { cpus, loadavg } from 'node:os';
import { percentile } from './runtime-kit.ts';
import type { TlsFigures, Window } from './runtime-tls.ts';

export const TLS_TARGETS = { handshakeRatio: 0.8, resumedRatio: 0.8, keptAliveRatio: 0.7, issuanceP50Ms: 5000, bytesPerCertificate: 20 * 1024 };

/** The rate a window measured (handshakes or requests per second). */
type Rate<R> = (w: Window<R>) => number;

/** Median over the rounds of `a`'s rate over `b`'s in the same round. */
function medianRatio<R>(a: Window<R>[], b: Window<R>[], rate: Rate<R>): number {
  return percentile(
    a.map((w, i) => rate(w) / rate(b[i]!)),
    50,
  );
}

/** Server CPU µs per handshake or request over the whole child run (warm-up included, as the CPU was counted). */
function cpuMicros<R extends { total: number; warmupTotal: number }>(windows: Window<R>[]): number {
  const cpu = windows.reduce((s, w) => s + w.serverCpuSeconds, 0);
  const count = windows.reduce((s, w) => s + w.result.total + w.result.warmupTotal, 0);
  return (cpu / count) * 1e6;
}

/** The share of the measured handshakes the client saw resume a session. */
function share(windows: Window<{ total: number; resumed: number }>[]): number {
  return windows.reduce((s, w) => s + w.result.resumed, 0) / windows.reduce((s, w) => s + w.result.total, 0);
}

/** What cw-runtime's own metric counted over the windows (warm-ups included). */
function counted<R>(windows: Window<R>[]): string {
  const full = windows.reduce((s, w) => s + (w.counted?.full ?? 0), 0);
  const resumed = windows.reduce((s, w) => s + (w.counted?.resumed ?? 0), 0);
  return `${full} full, ${resumed} resumed handshakes`;
}

function loaderCores<R>(windows: Window<R>[], seconds: number): string {
  return (windows.reduce((s, w) => s + w.loaderCpuSeconds, 0) / windows.length / seconds).toFixed(2);
}

export function tlsReport(f: TlsFigures, o: { connections: number; httpConnections: number; warmupSeconds: number; durationSeconds: number; rounds: number }): string[] {
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const runSeconds = o.warmupSeconds + o.durationSeconds;
  const hs: Rate<{ handshakesPerSecond: number }> = (w) => w.result.handshakesPerSecond;
  const rq: Rate<{ requestsPerSecond: number }> = (w) => w.result.requestsPerSecond;
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const perCert = (pick: (m: TlsFigures['memory']['none']) => number) => (pick(f.memory.loaded) - pick(f.memory.none)) / f.certificates;
  const rows = f.handshakes.map((row) => ({
    row,
    ratio: medianRatio(row.runtime, row.reference, hs),
    resumedShare: share(row.runtime),
    referenceResumedShare: share(row.reference),
  }));
  const keptRatio = medianRatio(f.keptAlive.https, f.keptAlive.http, rq);
  const issuanceP50 = percentile(f.issuance, 50);
  const bytesPerCert = perCert((m) => m.rss);
  const lines = [
    '',
    `HTTPS: cw-runtime's listener with ${f.certificates} certificates loaded (chosen by SNI) against Node's own tls server with one certificate;`,
    `${o.connections} handshakes in flight, ${o.warmupSeconds} s warm-up + ${o.durationSeconds} s per run, ${o.rounds} rounds, the order rotating; ALPN h2 and http/1.1 offered; chain not verified by the client`,
    `handshakes/s         cw-runtime  Node tls  Node http2   × Node tls  × http2   server CPU µs per handshake (runtime / tls / http2)   resumed (runtime / tls / http2)`,
    ...rows.map(
      ({ row, ratio, resumedShare, referenceResumedShare }) =>
        `  ${row.label.padEnd(18)} ${mean(row.runtime.map(hs)).toFixed(0).padStart(8)}  ${mean(row.reference.map(hs)).toFixed(0).padStart(8)}  ${mean(row.http2.map(hs)).toFixed(0).padStart(9)}   ${ratio.toFixed(2).padStart(10)}  ${medianRatio(row.runtime, row.http2, hs).toFixed(2).padStart(7)}   ${[
          row.runtime,
          row.reference,
          row.http2,
        ]
          .map((w) => cpuMicros(w).toFixed(0))
          .join(' / ')
          .padEnd(52)}  ${[resumedShare, referenceResumedShare, share(row.http2)].map((v) => `${(v * 100).toFixed(0)} %`).join(' / ')}`,
    ),
    `  cw-runtime idle: ${f.idleCores.toFixed(3)} cores (its watches, report and lease), in its CPU per handshake too: ${((f.idleCores * 1e6) / Math.max(...f.handshakes.map((r) => mean(r.runtime.map(hs))))).toFixed(0)} µs of it at the highest rate`,
    ...rows.map(
      ({ row }) =>
        `  ${row.label}, per round (runtime / tls / http2): ${[row.runtime, row.reference, row.http2].map((ws) => ws.map((w) => hs(w).toFixed(0)).join(' ')).join(' / ')}; load generator ${[row.runtime, row.reference, row.http2].map((ws) => loaderCores(ws, runSeconds)).join(' / ')} cores; cw-runtime counted ${counted(row.runtime)}`,
    ),
    '',
    `kept-alive requests/s, hello worker through the entry point, ${o.httpConnections} connections (autocannon, HTTP/1.1)`,
    `  HTTPS ${mean(f.keptAlive.https.map(rq)).toFixed(0)} req/s (rounds ${f.keptAlive.https.map((w) => rq(w).toFixed(0)).join(' ')}), p99 ${f.keptAlive.https.map((w) => w.result.p99Ms).join(' ')} ms`,
    `  HTTP  ${mean(f.keptAlive.http.map(rq)).toFixed(0)} req/s (rounds ${f.keptAlive.http.map((w) => rq(w).toFixed(0)).join(' ')}), p99 ${f.keptAlive.http.map((w) => w.result.p99Ms).join(' ')} ms`,
    `  HTTPS / HTTP ${keptRatio.toFixed(2)} (median of rounds); by entry point CPU per request (HTTP µs / HTTPS µs) ${(cpuMicros(f.keptAlive.http) / cpuMicros(f.keptAlive.https)).toFixed(2)}; entry point (Node) CPU per request: HTTPS ${cpuMicros(f.keptAlive.https).toFixed(0)} µs, HTTP ${cpuMicros(f.keptAlive.http).toFixed(0)} µs (workerd's not counted); during the HTTPS runs cw-runtime counted ${counted(f.keptAlive.https)}; load generator ${loaderCores(f.keptAlive.https, runSeconds)} / ${loaderCores(f.keptAlive.http, runSeconds)} cores (HTTPS / HTTP)`,
    '',
    `memory of the cw-runtime process (Node; its workerd shards not counted), after a full garbage collection`,
    `  no certificate:          RSS ${mb(f.memory.none.rss)}, V8 heap used ${mb(f.memory.none.heapUsed)}, external ${mb(f.memory.none.external)}`,
    `  ${f.certificates} in the cache:     RSS ${mb(f.memory.loaded.rss)}, V8 heap used ${mb(f.memory.loaded.heapUsed)}, external ${mb(f.memory.loaded.external)} (loaded ${(f.loadMs / 1000).toFixed(1)} s after the first status was written)`,
    `  per certificate: RSS ${kb(bytesPerCert)}, heap ${kb(perCert((m) => m.heapUsed))}, external ${kb(perCert((m) => m.external))} (the TLS context, the TlsCertificate in the informer, the index, what the bucket reads left in the allocator)`,
    `  reference, ${f.certificates} bare TLS contexts of the same kind in a Node process of their own: RSS ${kb(f.memory.bareContext.rss)}, heap ${kb(f.memory.bareContext.heapUsed)} per context; cw-runtime per certificate ${(bytesPerCert / f.memory.bareContext.rss).toFixed(2)} × that`,
    `  ${f.bound.served} served, bound ${f.bound.max}: RSS ${mb(f.memory.overBound.rss)}, V8 heap used ${mb(f.memory.overBound.heapUsed)} after the extra ones were each handshaken once`,
    ...f.memory.churn.map(
      (m, i) => `  after churn pass ${i + 1} (every name in turn: each handshake a miss, a load and an eviction): RSS ${mb(m.rss)}, V8 heap used ${mb(m.heapUsed)}, external ${mb(m.external)}`,
    ),
    `cache bound: ${f.bound.served} certificates served, ${f.bound.max} the bound: cache holds ${f.bound.cacheSize}; the ${f.bound.served - f.bound.max} extra ones each handshaken once: ${f.bound.checked} shown their own certificate, ${f.bound.handshakeLoads} loaded during the handshake`,
    '',
    `issuance against Pebble (validation on): TlsCertificate applied → first HTTPS 200, ${f.issuance.length} samples: ${f.issuance.map((t) => (t / 1000).toFixed(2)).join(' ')} s; p50 ${(issuanceP50 / 1000).toFixed(2)} s, max ${(Math.max(...f.issuance) / 1000).toFixed(2)} s`,
    `(${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end of the section)`,
    '',
    'TLS targets',
    ...rows.map(({ row, ratio }) => {
      const target = row.resume ? TLS_TARGETS.resumedRatio : TLS_TARGETS.handshakeRatio;
      return `  ${mark(ratio >= target)} ${row.label} handshakes ≥ ${target} × Node's tls server: ${ratio.toFixed(3)} by handshakes/s (by server CPU per handshake: ${(cpuMicros(row.reference) / cpuMicros(row.runtime)).toFixed(2)})`;
    }),
    `  ${mark(keptRatio >= TLS_TARGETS.keptAliveRatio)} kept-alive HTTPS ≥ ${TLS_TARGETS.keptAliveRatio} × plain HTTP through the same entry point: ${keptRatio.toFixed(3)} by requests/s (by entry point CPU per request: ${(cpuMicros(f.keptAlive.http) / cpuMicros(f.keptAlive.https)).toFixed(2)})`,
    `  ${mark(issuanceP50 <= TLS_TARGETS.issuanceP50Ms)} issuance p50 ≤ ${TLS_TARGETS.issuanceP50Ms / 1000} s against Pebble: ${(issuanceP50 / 1000).toFixed(2)} s`,
    `  ${mark(bytesPerCert <= TLS_TARGETS.bytesPerCertificate)} memory per cached certificate ≤ ${kb(TLS_TARGETS.bytesPerCertificate)}: ${kb(bytesPerCert)} (RSS)`,
    `  ${mark(f.bound.cacheSize === f.bound.max && f.bound.checked === f.bound.served - f.bound.max)} cache bound holds: ${f.bound.cacheSize} of ${f.bound.served} served held (bound ${f.bound.max})`,
    '',
  ];
  return lines;
}
