// The processes of the TLS section of bench/runtime.ts: a cw-runtime with its HTTPS listener (and an inspector
// port, so the bench can read its heap after a full garbage collection), a cw-operator ordering from Pebble,
// and the operator's part played by the bench for the certificates it loads: sealed into the bucket and named in
// TlsCertificate statuses, as e2e/runtime-tls.test.ts does.
import { RUNTIME_NODE_FLAGS } from '../runtime-server/node-flags.ts';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { startMinio } from '../e2e/harness/minio.ts';
import { freePort, waitForHttp } from '../e2e/harness/process.ts';
import { RUNTIME_STATUS_TOKEN } from '../e2e/harness/runtime-status-token.ts';
import { repoRoot } from '../e2e/harness/tools.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import type { ObjectClient } from '../src/kube/index.ts';
import { certificateObjectKey, type StoredCertificate } from '../src/tls/certificate-objects.ts';
import type { SealedStore } from '../src/tls/sealed-store.ts';
import { spawnToFile } from './child.ts';

export interface TlsStackEnv {
  kubeconfig: string;
  minio: Awaited<ReturnType<typeof startMinio>>;
  bucketName: string;
  stateDir: string;
  stops: (() => Promise<void>)[];
  node: string;
  baseDomain: string;
  /** CW_TLS_SEALING_KEY, base64. */
  sealingKey: string;
}

export interface HttpsRuntime {
  port: number;
  httpsPort: number;
  statusPort: number;
  inspectPort: number;
  pid: number;
  stop: () => Promise<void>;
}

function s3Env(env: TlsStackEnv): Record<string, string> {
  return {
    CW_S3_ENDPOINT: env.minio.endpoint,
    CW_S3_BUCKET: env.bucketName,
    CW_S3_REGION: env.minio.s3.region,
    CW_S3_ACCESS_KEY_ID: env.minio.s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: env.minio.s3.credentials?.secretAccessKey ?? '',
  };
}

/** Starts a cw-runtime serving every namespace over HTTP and HTTPS, reporting in `namespace`; resolves once it is ready. */
export async function startHttpsRuntime(env: TlsStackEnv, namespace: string, cacheSize: number): Promise<HttpsRuntime> {
  const [port, httpsPort, statusPort, inspectPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const runtime = spawnToFile({
    name: 'cw-runtime-tls',
    command: env.node,
    args: [...RUNTIME_NODE_FLAGS, `--inspect=127.0.0.1:${inspectPort}`, join(repoRoot, 'bin/cw-runtime.ts')],
    env: {
      ...process.env,
      ...s3Env(env),
      KUBECONFIG: env.kubeconfig,
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(port),
      CW_RUNTIME_HTTPS_PORT: String(httpsPort),
      CW_RUNTIME_TLS_CACHE: String(cacheSize),
      CW_TLS_SEALING_KEY: env.sealingKey,
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(statusPort),
      CW_RUNTIME_BASE_DOMAIN: env.baseDomain,
      CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
      POD_NAMESPACE: namespace,
      CW_RUNTIME_REPLICA_NAME: 'cw-runtime-tls',
      CW_LOG_LEVEL: 'warn',
    },
    logPath: join(env.stateDir, 'cw-runtime-tls.log'),
  });
  const stop = () => runtime.stop();
  env.stops.push(stop);
  await waitForHttp(runtime, `http://127.0.0.1:${statusPort}/readyz`, 300_000);
  return { port, httpsPort, statusPort, inspectPort, pid: runtime.child.pid ?? 0, stop };
}

/** Starts a cw-operator reconciling `namespace` only, ordering certificates from `acme` (Pebble). */
export async function startTlsOperator(env: TlsStackEnv, namespace: string, acme: { directoryUrl: string; caFile: string; selfCheckUrl: string }): Promise<() => Promise<void>> {
  const port = await freePort();
  const operator = spawnToFile({
    name: 'cw-operator-tls',
    command: env.node,
    args: [join(repoRoot, 'bin/cw-operator.ts')],
    env: {
      ...process.env,
      ...s3Env(env),
      KUBECONFIG: env.kubeconfig,
      CW_OPERATOR_PORT: String(port),
      POD_NAMESPACE: namespace,
      CW_WATCH_NAMESPACE: namespace,
      CW_RUNTIME_BASE_DOMAIN: env.baseDomain,
      // No Route 53 here: HTTP-01 only, and DNS lookups that give up at once.
      CW_DNS_PROVIDER: 'memory',
      CW_DNS_RESOLVER: '127.0.0.1:9',
      CW_DNS_TIMEOUT_MS: '300',
      CW_TLS_SEALING_KEY: env.sealingKey,
      CW_ACME_DIRECTORY_URL: acme.directoryUrl,
      CW_ACME_CA_FILE: acme.caFile,
      CW_ACME_HTTP01_SELF_CHECK_URL: acme.selfCheckUrl,
      CW_LOG_LEVEL: 'warn',
    },
    logPath: join(env.stateDir, 'cw-operator-tls.log'),
  });
  const stop = () => operator.stop();
  env.stops.push(stop);
  await waitForHttp(operator, `http://127.0.0.1:${port}/healthz`, 60_000);
  return stop;
}

/** Seals each certificate as the operator does and names it in a TlsCertificate's status (`<prefix><i>`), 8 at a time. */
export async function serveCertificates(sealed: SealedStore, client: ObjectClient<TlsCertificate>, namespace: string, prefix: string, certificates: readonly StoredCertificate[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < certificates.length) {
      const i = next++;
      const cert = certificates[i]!;
      const name = `${prefix}${i}`;
      await sealed.put(certificateObjectKey(namespace, name, cert.serial), cert);
      await client.create({ metadata: { name, namespace }, spec: { dnsNames: [...cert.dnsNames] } });
      await client.patchStatus(namespace, name, { status: { state: 'Issued', serial: cert.serial, dnsNames: cert.dnsNames, notAfter: cert.notAfter } });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** One value of the runtime's /metrics (a metric without labels, or the sum over a label match). */
export async function runtimeMetric(statusPort: number, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${statusPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) if (line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Waits until the runtime's metric `name` reads `value`. */
export async function untilMetric(statusPort: number, name: string, value: number, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = NaN;
  while (performance.now() < deadline) {
    last = await runtimeMetric(statusPort, name);
    if (last === value) return;
    await sleep(200);
  }
  throw new Error(`${name} read ${last}, not ${value}, after ${timeoutMs} ms`);
}

export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  /** Memory outside the V8 heap that V8 knows of (buffers, native objects such as TLS contexts report part of theirs). */
  external: number;
}

/** The runtime's memory after a full garbage collection, through its inspector (Chrome DevTools Protocol). */
export async function memoryAfterGc(inspectPort: number): Promise<ProcessMemory> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  };
  let id = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    await call('HeapProfiler.collectGarbage');
    const result = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
    const usage = JSON.parse(result.result.value) as { rss: number; heapUsed: number; external: number };
    return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external };
  } finally {
    ws.close();
  }
}
