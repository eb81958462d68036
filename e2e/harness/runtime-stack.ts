// The serving half of the platform for end-to-end tests: cw-runtime replicas and a cw-operator confined to
// one namespace, as child processes against the test control plane and the run's bucket, plus the probes
// that wait for the runtime entry point to answer a host.
import { RUNTIME_NODE_FLAGS } from '../../runtime-server/node-flags.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { send } from '../../runtime-server/engine/testing/http.ts';
import { freePort, onFreePorts, startService, waitForHttp, type Service } from './process.ts';
import { RUNTIME_STATUS_TOKEN } from './runtime-status-token.ts';
import { repoRoot, toolPath } from './tools.ts';

/** What clients are told the entry point is (as if behind a load balancer), the same for every replica. */
export const PUBLIC_PORT = 8080;
export const BASE_DOMAIN = 'apps.localhost';

export interface Runtime {
  /** Its replica name: its RuntimeReplica and Lease in the stack's namespace are named so. */
  name: string;
  service: Service;
  port: number;
  statusUrl: string;
}

/** CW_S3_* for the run's bucket, as cw-api, cw-runtime and cw-operator (a deleted app's artifacts) read them. */
export function s3Env(): Record<string, string> {
  const s3 = inject('s3');
  return {
    CW_S3_ENDPOINT: s3.endpoint ?? '',
    CW_S3_REGION: s3.region,
    CW_S3_BUCKET: inject('bucket'),
    CW_S3_ACCESS_KEY_ID: s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: s3.credentials?.secretAccessKey ?? '',
  };
}

/**
 * A deploy artifact of one ES module worker, `worker.js` with `source`, packed by the `tar` and `zstd` CLIs
 * as a user would pack it.
 */
export function packWorker(source: string): Buffer {
  const dir = mkdtempSync(join(inject('stateDir'), 'worker-'));
  try {
    writeFileSync(join(dir, 'worker.js'), source);
    return execFileSync('zstd', ['-q', '-c'], { input: execFileSync('tar', ['-cf', '-', '-C', dir, 'worker.js']) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts a cw-runtime replica (serving every namespace) that reports what it serves in `namespace`, where the
 * stack's operator looks for replicas (as the release namespace in a cluster); resolves once it is ready.
 * `running` gets its service. Nobody is told its address: the operator finds it by its RuntimeReplica.
 */
export function startRuntime(name: string, namespace: string, running: Service[], env: Record<string, string> = {}): Promise<Runtime> {
  return onFreePorts(
    () => launchRuntime(name, namespace, running, env),
    (runtime) => waitForHttp(runtime.service, `${runtime.statusUrl}/readyz`, 60_000),
    ({ service }) => void running.splice(running.indexOf(service), 1),
  );
}

/** As {@link startRuntime}, without waiting for it to be ready (a test of how it starts). */
export async function launchRuntime(name: string, namespace: string, running: Service[], env: Record<string, string> = {}): Promise<Runtime> {
  const [port, statusPort] = [await freePort(), await freePort()];
  const service = startService({
    name,
    command: toolPath('node'),
    args: [...RUNTIME_NODE_FLAGS, join(repoRoot, 'bin/cw-runtime.ts')],
    logPath: join(inject('stateDir'), `${name}.log`),
    env: {
      ...process.env,
      ...s3Env(),
      KUBECONFIG: inject('kubeconfig'),
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(port),
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(statusPort),
      CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
      CW_RUNTIME_PUBLIC_SCHEME: 'http',
      CW_RUNTIME_PUBLIC_PORT: String(PUBLIC_PORT),
      POD_NAMESPACE: namespace,
      CW_RUNTIME_REPLICA_NAME: name,
      CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
      ...env,
    },
  });
  running.push(service);
  return { name, service, port, statusUrl: `http://127.0.0.1:${statusPort}` };
}

/**
 * Starts a cw-operator that reconciles `namespace` only (so tests sharing the control plane never fight over
 * each other's objects; cluster-scoped kinds such as Projects are left alone) and counts the runtime replicas
 * reporting in that namespace (`startRuntime`'s). It has the run's artifact bucket (`s3Env`), as cw-api has:
 * a deleted app's artifacts are its RuntimeApp controller's to delete.
 */
export async function startOperator(namespace: string, running: Service[], env: Record<string, string> = {}): Promise<void> {
  const launch = async () => {
    const port = await freePort();
    const service = startService({
      name: `operator-${namespace}`,
      command: toolPath('node'),
      args: [join(repoRoot, 'bin/cw-operator.ts')],
      logPath: join(inject('stateDir'), `operator-${namespace}.log`),
      env: {
        ...process.env,
        KUBECONFIG: inject('kubeconfig'),
        CW_OPERATOR_PORT: String(port),
        POD_NAMESPACE: namespace,
        CW_WATCH_NAMESPACE: namespace,
        ...s3Env(),
        ...env,
      },
    });
    running.push(service);
    return { service, port };
  };
  await onFreePorts(
    launch,
    ({ service, port }) => waitForHttp(service, `http://127.0.0.1:${port}/healthz`, 30_000),
    ({ service }) => void running.splice(running.indexOf(service), 1),
  );
}

/** Polls `probe` every 50 ms until `ok` holds; throws with the last value (or error) after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let error: unknown;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      error = undefined;
      if (ok(last)) return last;
    } catch (err) {
      error = err;
    }
    await sleep(50);
  }
  // oxlint-disable-next-line typescript/no-base-to-string -- whatever `probe` threw, shown as String() shows it
  throw new Error(`${what}: not within ${timeoutMs} ms; last ${error ? `error ${String(error)}` : JSON.stringify(last)}`);
}

/** Waits until every runtime answers `host` with `body` (status 200). */
export async function servedEverywhere(runtimes: Runtime[], host: string, body: string, timeoutMs?: number): Promise<void> {
  for (const runtime of runtimes) {
    await eventually(
      `${host} → ${body} on :${runtime.port}`,
      () => send(runtime.port, host),
      (r) => r.status === 200 && r.body === body,
      timeoutMs,
    );
  }
}

/** Waits until every runtime answers `host` with 404. */
export async function notServedAnywhere(runtimes: Runtime[], host: string, timeoutMs?: number): Promise<void> {
  for (const runtime of runtimes) {
    await eventually(
      `${host} → 404 on :${runtime.port}`,
      () => send(runtime.port, host),
      (r) => r.status === 404,
      timeoutMs,
    );
  }
}
