// The processes `make bench-scale` measures, each in a child of its own so its memory can be read from /proc: a
// local control plane (etcd and kube-apiserver in one process), MinIO, and cw-operator, cw-api and one cw-runtime
// watching every namespace, as the chart runs them.
import { join } from 'node:path';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { createRunBucket, startMinio, type MinioServer } from '../e2e/harness/minio.ts';
import { freePort, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { RUNTIME_STATUS_TOKEN } from '../e2e/harness/runtime-status-token.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { spawnToFile } from './child.ts';
import type { BenchRun } from './run.ts';

export const BASE_DOMAIN = 'apps.localhost';

/** A server the bench can stop and start again (a restart is one of the figures). */
export interface Restartable {
  readonly name: string;
  readonly port: number;
  /** Its DevTools inspector port on 127.0.0.1 (a new one at each start), for `liveHeap`. */
  readonly inspectPort: number;
  /** Where it answers `/readyz` (the runtime: its status port). */
  readonly readyUrl: string;
  pid(): number;
  /** Starts it (again); resolves when `readyUrl` answers, with the milliseconds that took. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export interface ScaleStack {
  readonly kubeconfig: string;
  readonly stateDir: string;
  readonly minio: MinioServer;
  readonly bucket: string;
  /** The control plane's process (etcd and kube-apiserver). */
  readonly controlPlanePid: number;
  readonly operator: Restartable;
  readonly api: Restartable;
  readonly runtime: Restartable;
  readonly operatorMetricsUrl: string;
}

/** The runtime replica's name (its RuntimeReplica in the default namespace). */
export const RUNTIME_REPLICA_NAME = 'cw-runtime-scale';

export async function startScaleStack(run: BenchRun): Promise<ScaleStack> {
  const { stateDir, stops } = run;
  const [cluster, minio] = await Promise.all([startControlPlane({ stateDir, throwaway: true }), startMinio(stateDir)]);
  stops.push(
    () => cluster.stop(),
    () => minio.service.stop(),
  );
  await installCrds(cluster.kubeconfig);
  const bucket = await createRunBucket(minio, 'cw-bench-scale');
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: cluster.kubeconfig,
    CW_S3_ENDPOINT: minio.endpoint,
    CW_S3_BUCKET: bucket,
    CW_S3_REGION: minio.s3.region,
    CW_S3_ACCESS_KEY_ID: minio.s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: minio.s3.credentials?.secretAccessKey ?? '',
    CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
    CW_LOG_LEVEL: 'warn',
  };
  const [operatorPort, apiPort, runtimePort, statusPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const restartable = (name: string, script: string, port: number, readyUrl: string, env: NodeJS.ProcessEnv): Restartable => {
    let service: Service | undefined;
    let inspectPort = 0;
    const stop = async () => {
      await service?.stop(30_000);
      service = undefined;
    };
    stops.push(stop);
    return {
      name,
      port,
      readyUrl,
      get inspectPort() {
        return inspectPort;
      },
      pid: () => service?.child.pid ?? 0,
      stop,
      async start() {
        const started = performance.now();
        inspectPort = await freePort();
        // The inspector is how the bench reads the live heap (bench/inspector-probe.ts); it costs nothing until asked.
        const args = [`--inspect=127.0.0.1:${inspectPort}`, join(repoRoot, script)];
        service = spawnToFile({ name, command: toolPath('node'), args, env: { ...common, ...env }, logPath: join(stateDir, `${name}.log`) });
        await waitForHttp(service, readyUrl, 1_800_000);
        return performance.now() - started;
      },
    };
  };
  // The heap bound the chart gives both (cloudwright.nodeHeapEnv: three quarters of their 1Gi limit).
  const chartHeap = { NODE_OPTIONS: '--max-old-space-size=768' };
  const operator = restartable('cw-operator', 'bin/cw-operator.ts', operatorPort, `http://127.0.0.1:${operatorPort}/readyz`, {
    ...chartHeap,
    CW_OPERATOR_PORT: String(operatorPort),
  });
  const api = restartable('cw-api', 'bin/cw-api.ts', apiPort, `http://127.0.0.1:${apiPort}/readyz`, {
    ...chartHeap,
    CW_API_HOST: '127.0.0.1',
    CW_API_PORT: String(apiPort),
    CW_API_RATE_LIMIT: '1000000000',
    CW_API_RATE_BURST: '1000000000',
    CW_API_WRITE_RATE_LIMIT: '1000000000',
    CW_API_WRITE_RATE_BURST: '1000000000',
    CW_API_IN_FLIGHT_PER_USER: '100000',
  });
  const runtime = restartable('cw-runtime', 'bin/cw-runtime.ts', runtimePort, `http://127.0.0.1:${statusPort}/readyz`, {
    CW_RUNTIME_HOST: '127.0.0.1',
    CW_RUNTIME_PORT: String(runtimePort),
    CW_RUNTIME_STATUS_HOST: '127.0.0.1',
    CW_RUNTIME_STATUS_PORT: String(statusPort),
    CW_RUNTIME_PUBLIC_SCHEME: 'http',
    CW_RUNTIME_REPLICA_NAME: RUNTIME_REPLICA_NAME,
    CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
    // The chart's bound on cw-runtime's own heap (runtime.nodeHeapMiB).
    NODE_OPTIONS: '--max-old-space-size=512',
  });
  return {
    kubeconfig: cluster.kubeconfig,
    stateDir,
    minio,
    bucket,
    controlPlanePid: cluster.pid ?? 0,
    operator,
    api,
    runtime,
    operatorMetricsUrl: `http://127.0.0.1:${operatorPort}/metrics`,
  };
}
