// The processes of `make bench-push` (bench/push-to-deploy.ts), as make dev runs them: a local control plane; a
// MinIO of its own whose bucket notifications wake cw-git (e2e/harness/notified-git.ts: serve and events roles,
// the Kubernetes repository directory in the project's namespace, so a push raises its Repository's
// `cloudwright.dev/pushed-seq`); a cw-operator building pushes with the local runner (CW_BUILD_RUNNER=local)
// and confined to that namespace; one cw-runtime. Servers write their logs straight to files (bench/child.ts).
import { RUNTIME_NODE_FLAGS } from '../runtime-server/node-flags.ts';
import { join } from 'node:path';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { createMemberAccount, createProjectNamespace } from '../e2e/harness/accounts.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { createRunBucket } from '../e2e/harness/minio.ts';
import { NotifiedGit } from '../e2e/harness/notified-git.ts';
import { freePort, waitForHttp } from '../e2e/harness/process.ts';
import { RUNTIME_STATUS_TOKEN } from '../e2e/harness/runtime-status-token.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { mintToken } from '../git-server/auth/index.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { spawnToFile } from './child.ts';
import type { BenchRun } from './run.ts';

export const BASE_DOMAIN = 'apps.localhost';

export interface PushStack {
  readonly kubeconfig: string;
  readonly project: string;
  /** cw-git's base URL with a write token in it: `${remoteBase}/${project}/${repo}` is a push URL. */
  readonly remoteBase: string;
  readonly s3: S3Config;
  /** Where builds and deploy artifacts go (CW_S3_BUCKET). */
  readonly artifactBucket: string;
  readonly runtimePort: number;
  /** The operator's Prometheus metrics (controller_runtime_*, workqueue_*). */
  readonly operatorMetricsUrl: string;
}

export async function startPushStack(run: BenchRun, operatorEnv: Record<string, string>): Promise<PushStack> {
  const { stateDir, stops } = run;
  const cluster = await startControlPlane({ stateDir, throwaway: true });
  stops.push(() => cluster.stop());
  await installCrds(cluster.kubeconfig);
  const { project } = await createMemberAccount(cluster.kubeconfig, 'bench');
  await createProjectNamespace(cluster.kubeconfig, project);

  const git = await NotifiedGit.start({ stateDir: join(stateDir, 'minio'), kubeconfig: cluster.kubeconfig, namespace: project });
  stops.push(() => git.stop());
  const artifactBucket = await createRunBucket(git.minio, 'cw-bench-push');
  const { s3 } = git.minio;
  const s3Env = {
    CW_S3_ENDPOINT: git.minio.endpoint,
    CW_S3_REGION: s3.region,
    CW_S3_BUCKET: artifactBucket,
    CW_S3_ACCESS_KEY_ID: s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: s3.credentials?.secretAccessKey ?? '',
  };
  const common = { ...process.env, ...s3Env, KUBECONFIG: cluster.kubeconfig, POD_NAMESPACE: project, CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN };

  const [runtimePort, statusPort, operatorPort] = [await freePort(), await freePort(), await freePort()];
  const runtime = spawnToFile({
    name: 'cw-runtime',
    command: toolPath('node'),
    args: [...RUNTIME_NODE_FLAGS, join(repoRoot, 'bin/cw-runtime.ts')],
    env: {
      ...common,
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(runtimePort),
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(statusPort),
      CW_RUNTIME_PUBLIC_SCHEME: 'http',
      CW_RUNTIME_REPLICA_NAME: 'cw-runtime-push',
      CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
    },
    logPath: join(stateDir, 'cw-runtime.log'),
  });
  stops.push(() => runtime.stop());
  const operator = spawnToFile({
    name: 'cw-operator',
    command: toolPath('node'),
    args: [join(repoRoot, 'bin/cw-operator.ts')],
    env: {
      ...common,
      CW_OPERATOR_PORT: String(operatorPort),
      CW_WATCH_NAMESPACE: project,
      CW_GIT_BUCKET: git.setup.bucket,
      CW_BUILD_RUNNER: 'local',
      CW_BUILD_WORK_DIR: join(stateDir, 'operator'),
      ...operatorEnv,
    },
    logPath: join(stateDir, 'cw-operator.log'),
  });
  stops.push(() => operator.stop());
  await Promise.all([waitForHttp(runtime, `http://127.0.0.1:${statusPort}/readyz`, 120_000), waitForHttp(operator, `http://127.0.0.1:${operatorPort}/healthz`, 60_000)]);

  const token = mintToken({ sub: 'bench', scopes: ['write'] }, git.setup.tokenSecret);
  const url = git.notified?.url ?? `http://127.0.0.1:${git.port}`;
  return {
    kubeconfig: cluster.kubeconfig,
    project,
    remoteBase: url.replace('http://', `http://git:${token}@`),
    s3,
    artifactBucket,
    runtimePort,
    operatorMetricsUrl: `http://127.0.0.1:${operatorPort}/metrics`,
  };
}
