// The TLS section of `make bench-runtime` (issue 39, docs/runtime.md "Measurements", HTTPS): one cw-runtime with
// its HTTPS listener, against Node's own `tls` server with one certificate (bench/tls-reference-server.ts), in
// interleaved rounds, the order rotating, the same load generators for both:
//
//   1. memory of the runtime process (after a full GC) with 0 and then `certificates` (1,000) loaded, against
//      as many bare TLS contexts in a Node process of their own (bench/tls-context-memory.ts);
//   2. full and resumed (session ticket) handshakes per second, TLS 1.3 and 1.2 (bench/tls-handshake-load.ts),
//      the runtime choosing among its 1,000 certificates by SNI; server CPU per handshake from /proc;
//   3. requests per second over kept-alive connections, HTTPS against plain HTTP through the same entry point
//      (the hello worker; autocannon, bench/runtime-load.ts);
//   4. the cache bound: `extra` (500) certificates more than it holds, each then handshaken once;
//   5. issuance: TlsCertificate applied → first HTTPS 200 against Pebble (bench/runtime-tls-issuance.ts).
import { randomBytes } from 'node:crypto';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestNamespace } from '../e2e/harness/namespace.ts';
import { freePort } from '../e2e/harness/process.ts';
import { repoRoot } from '../e2e/harness/tools.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { objectClient, type KubeConnection } from '../src/kube/index.ts';
import { TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { SealedStore } from '../src/tls/sealed-store.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { TestCa } from '../runtime-server/tls/testing/test-ca.ts';
import { runToCompletion, spawnToFile } from './child.ts';
import { cpuSeconds, firstServed, reapedChildrenCpuSeconds, upload, type Kit } from './runtime-kit.ts';
import type { RuntimeLoadResult, RuntimeLoadSpec } from './runtime-load.ts';
import { measureIssuance } from './runtime-tls-issuance.ts';
import { memoryAfterGc, runtimeMetric, serveCertificates, startHttpsRuntime, untilMetric, type ProcessMemory, type TlsStackEnv } from './runtime-tls-stack.ts';
import type { HandshakeLoadResult, HandshakeLoadSpec } from './tls-handshake-load.ts';

export interface TlsOptions {
  env: Omit<TlsStackEnv, 'sealingKey'>;
  kube: KubeConnection;
  kit: Omit<Kit, 'namespace'>;
  helloSource: string;
  certificates: number;
  extra: number;
  connections: number;
  httpConnections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rounds: number;
  issuances: number;
  /** Passes over every certificate's name after the bound check, each handshake then a miss. */
  churnPasses: number;
  say: (message: string) => void;
}

/** One measured window of one target: the load generator's figures and the CPU the server and the generator used. */
export interface Window<R> {
  result: R;
  serverCpuSeconds: number;
  loaderCpuSeconds: number;
  /** Handshakes cw-runtime counted over the child run (its metric), full and resumed; absent for the references. */
  counted?: { full: number; resumed: number };
}

export interface HandshakeRow {
  label: string;
  resume: boolean;
  maxVersion: 'TLSv1.3' | 'TLSv1.2';
  runtime: Window<HandshakeLoadResult>[];
  reference: Window<HandshakeLoadResult>[];
  /** Node's http2 secure server with HTTP/1.1 allowed and one certificate: the server type cw-runtime listens with. */
  http2: Window<HandshakeLoadResult>[];
}

export interface TlsFigures {
  certificates: number;
  loadMs: number;
  /** Cores the runtime process kept busy while idle (3 s, 1,000 certificates loaded). */
  idleCores: number;
  /** `bareContext`: bytes per TLS context of the same kind in a bare Node process (bench/tls-context-memory.ts). */
  memory: { none: ProcessMemory; loaded: ProcessMemory; overBound: ProcessMemory; churn: ProcessMemory[]; bareContext: { rss: number; heapUsed: number } };
  handshakes: HandshakeRow[];
  keptAlive: { https: Window<RuntimeLoadResult>[]; http: Window<RuntimeLoadResult>[] };
  bound: { max: number; served: number; cacheSize: number; handshakeLoads: number; checked: number };
  issuance: number[];
}

const ROWS = [
  { label: 'full, TLS 1.3', resume: false, maxVersion: 'TLSv1.3' },
  { label: 'full, TLS 1.2', resume: false, maxVersion: 'TLSv1.2' },
  { label: 'resumed, TLS 1.3', resume: true, maxVersion: 'TLSv1.3' },
  { label: 'resumed, TLS 1.2', resume: true, maxVersion: 'TLSv1.2' },
] as const;

export async function measureTls(o: TlsOptions): Promise<TlsFigures> {
  const env: TlsStackEnv = { ...o.env, sealingKey: randomBytes(32).toString('base64') };
  const namespace = await createTestNamespace(o.kube, 'bench-tls');
  const kit: Kit = { ...o.kit, namespace };
  const deploy = async (ns: string, name: string) => {
    const owner = await kit.apps.create({ metadata: { name, namespace: ns }, spec: { displayName: name, environment: { GREETING: 'Hello' } } });
    const id = await upload(kit, name, owner, artifactFromFiles({ 'worker.js': o.helloSource }), ns);
    await kit.apps.patch(ns, name, { spec: { activeBuildId: id } });
  };
  const runtime = await startHttpsRuntime(env, namespace, o.certificates);
  const helloHost = `hello.${namespace}.${env.baseDomain}`;
  await deploy(namespace, 'hello');
  await firstServed(runtime.port, helloHost, 'Hello');

  o.say(`TLS: ${o.certificates} certificates of a test CA (ECDSA P-256, as Let's Encrypt issues by default) sealed into the bucket and named in TlsCertificate statuses`);
  const none = await memoryAfterGc(runtime.inspectPort);
  const ca = await TestCa.create();
  const names = [helloHost, ...Array.from({ length: o.certificates - 1 }, (_, i) => `s${i + 1}.${namespace}.${env.baseDomain}`)];
  const issued = await Promise.all(names.map((name) => ca.issue([name])));
  const sealed = new SealedStore(kit.bucket, Buffer.from(env.sealingKey, 'base64'));
  const client = objectClient<TlsCertificate>(o.kube, TLS_CERTIFICATES);
  const t0 = performance.now();
  await serveCertificates(sealed, client, namespace, 'c', issued);
  await untilMetric(runtime.statusPort, 'cloudwright_runtime_tls_context_cache_size', o.certificates);
  const loadMs = performance.now() - t0;
  const loaded = await memoryAfterGc(runtime.inspectPort);
  const bareContext = JSON.parse(await runToCompletion(process.execPath, ['--expose-gc', join(repoRoot, 'bench/tls-context-memory.ts'), JSON.stringify({ count: o.certificates })])) as {
    rss: number;
    heapUsed: number;
  };

  // What the runtime spends with nothing to serve (informers, its report and lease), counted in its CPU per handshake too.
  const idle0 = cpuSeconds(runtime.pid);
  await sleep(3000);
  const idleCores = (cpuSeconds(runtime.pid) - idle0) / 3;
  const referenceCert = await ca.issue(['reference.example']);
  const reference = await startReference(o, referenceCert, 'tls');
  const http2Reference = await startReference(o, referenceCert, 'http2');
  const handshakes: HandshakeRow[] = ROWS.map((r) => ({ ...r, runtime: [], reference: [], http2: [] }));
  for (let round = 0; round < o.rounds; round++) {
    o.say(`TLS handshakes, round ${round + 1}/${o.rounds}`);
    for (const row of handshakes) {
      const targets = [
        { into: row.runtime, port: runtime.httpsPort, pid: runtime.pid, names, statusPort: runtime.statusPort },
        { into: row.reference, port: reference.port, pid: reference.pid, names: ['reference.example'] },
        { into: row.http2, port: http2Reference.port, pid: http2Reference.pid, names: ['reference.example'] },
      ];
      for (const k of [0, 1, 2]) {
        const t = targets[(round + k) % 3]!;
        const spec: HandshakeLoadSpec = {
          port: t.port,
          names: t.names,
          connections: o.connections,
          warmupSeconds: o.warmupSeconds,
          durationSeconds: o.durationSeconds,
          resume: row.resume,
          maxVersion: row.maxVersion,
        };
        t.into.push(await measured(t.pid, 'tls-handshake-load.ts', spec, t.statusPort));
      }
    }
  }
  await reference.stop();
  await http2Reference.stop();

  const keptAlive = { https: [] as Window<RuntimeLoadResult>[], http: [] as Window<RuntimeLoadResult>[] };
  for (let round = 0; round < o.rounds; round++) {
    o.say(`HTTPS and HTTP requests over kept-alive connections, round ${round + 1}/${o.rounds}`);
    const targets = [
      { into: keptAlive.https, url: `https://127.0.0.1:${runtime.httpsPort}/`, servername: helloHost },
      { into: keptAlive.http, url: `http://127.0.0.1:${runtime.port}/` },
    ];
    for (const k of [0, 1]) {
      const t = targets[(round + k) % 2]!;
      const spec: RuntimeLoadSpec = {
        url: t.url,
        host: helloHost,
        connections: o.httpConnections,
        warmupSeconds: o.warmupSeconds,
        durationSeconds: o.durationSeconds,
        ...(t.servername ? { servername: t.servername } : {}),
      };
      t.into.push(await measured(runtime.pid, 'runtime-load.ts', spec, runtime.statusPort));
    }
  }

  o.say(`the cache bound: ${o.extra} certificates more than the ${o.certificates} it holds`);
  const more = await Promise.all(Array.from({ length: o.extra }, (_, i) => ca.issue([`x${i}.${namespace}.${env.baseDomain}`])));
  await serveCertificates(sealed, client, namespace, 'x', more);
  await untilMetric(runtime.statusPort, 'cloudwright_runtime_tls_certificates', o.certificates + o.extra);
  const loadsBefore = await runtimeMetric(runtime.statusPort, 'cloudwright_runtime_tls_certificate_loads_total', 'trigger="handshake",result="loaded"');
  let checked = 0;
  for (const cert of more) if ((await servedSerial(runtime.httpsPort, cert.dnsNames[0]!, ca.certPem)) === cert.serial) checked++;
  const bound = {
    max: o.certificates,
    served: await runtimeMetric(runtime.statusPort, 'cloudwright_runtime_tls_certificates'),
    cacheSize: await runtimeMetric(runtime.statusPort, 'cloudwright_runtime_tls_context_cache_size'),
    handshakeLoads: (await runtimeMetric(runtime.statusPort, 'cloudwright_runtime_tls_certificate_loads_total', 'trigger="handshake",result="loaded"')) - loadsBefore,
    checked,
  };
  const overBound = await memoryAfterGc(runtime.inspectPort);
  // Churn: every name in turn, so with more names than the bound every handshake misses, loads and evicts; memory
  // that grows pass after pass would be contexts (or their loads) kept past eviction.
  const everyCert = [...issued, ...more];
  const churn: ProcessMemory[] = [];
  for (let pass = 0; pass < o.churnPasses; pass++) {
    o.say(`churn pass ${pass + 1}/${o.churnPasses}: ${everyCert.length} names in turn, 8 at a time`);
    let next = 0;
    const worker = async () => {
      while (next < everyCert.length) {
        const cert = everyCert[next++]!;
        const shown = await servedSerial(runtime.httpsPort, cert.dnsNames[0]!, ca.certPem);
        if (shown !== cert.serial) throw new Error(`${cert.dnsNames[0]} was shown serial ${shown}, not ${cert.serial}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    churn.push(await memoryAfterGc(runtime.inspectPort));
  }

  o.say(`issuance against Pebble, ${o.issuances} samples`);
  const issuance = await measureIssuance({ env, kube: o.kube, kit, runtime, samples: o.issuances, deploy });
  await runtime.stop();
  return { certificates: o.certificates, loadMs, idleCores, memory: { none, loaded, overBound, bareContext, churn }, handshakes, keptAlive, bound, issuance };
}

/** Runs one load generator child against `pid`, counting the server's and the generator's CPU over its whole run (and cw-runtime's handshakes, given its status port). */
async function measured<R>(pid: number, script: string, spec: object, statusPort?: number): Promise<Window<R>> {
  const handshakes = async () => {
    if (statusPort === undefined) return undefined;
    const [full, resumed] = await Promise.all(['full', 'resumed'].map((outcome) => runtimeMetric(statusPort, 'cloudwright_runtime_tls_handshakes_total', `outcome="${outcome}"`)));
    return { full: full!, resumed: resumed! };
  };
  const before = await handshakes();
  const server0 = cpuSeconds(pid);
  const loader0 = reapedChildrenCpuSeconds();
  const out = await runToCompletion(process.execPath, [join(repoRoot, 'bench', script), JSON.stringify(spec)]);
  const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as R & { errors: number; firstError?: string; timeouts?: number; non2xx?: number };
  // A refused or failed request would make the rate meaningless: the run fails instead.
  const failures = result.errors + (result.timeouts ?? 0) + (result.non2xx ?? 0);
  if (failures > 0)
    throw new Error(
      `${script} against pid ${pid}: ${result.errors} errors, ${result.timeouts ?? 0} timeouts, ${result.non2xx ?? 0} non-2xx${result.firstError ? ` (first error: ${result.firstError})` : ''}`,
    );
  const window: Window<R> = { result, serverCpuSeconds: cpuSeconds(pid) - server0, loaderCpuSeconds: reapedChildrenCpuSeconds() - loader0 };
  const after = await handshakes();
  if (before && after) window.counted = { full: after.full - before.full, resumed: after.resumed - before.resumed };
  return window;
}

async function startReference(o: TlsOptions, cert: { chainPem: string; privateKeyPem: string }, kind: 'tls' | 'http2'): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const server = spawnToFile({
    name: `${kind}-reference`,
    command: o.env.node,
    args: [join(repoRoot, 'bench/tls-reference-server.ts'), JSON.stringify({ port, kind, certPem: cert.chainPem, keyPem: cert.privateKeyPem })],
    env: process.env,
    logPath: join(o.env.stateDir, `${kind}-reference.log`),
  });
  o.env.stops.push(() => server.stop());
  const deadline = performance.now() + 30_000;
  while ((await servedSerial(port, 'reference.example').catch(() => undefined)) === undefined) {
    if (performance.now() > deadline) throw new Error('the reference TLS server did not start');
  }
  return { port, pid: server.child.pid ?? 0, stop: () => server.stop() };
}

/** The serial of the certificate shown for `servername` (checked against `ca` when given). */
function servedSerial(port: number, servername: string, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ...(ca ? { ca } : { rejectUnauthorized: false }) }, () => {
      resolve(String(socket.getPeerCertificate().serialNumber).toLowerCase());
      socket.end();
    });
    socket.once('error', reject);
  });
}
