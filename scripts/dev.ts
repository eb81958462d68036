// `make dev`: the whole platform on this machine, in the foreground. Ctrl-C (or SIGTERM) stops everything
// it started. State (the cluster's etcd, MinIO's data) is kept in .dev/state between runs.
import { RUNTIME_NODE_FLAGS } from '../runtime-server/node-flags.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { startMinio } from '../e2e/harness/minio.ts';
import { startMoto } from '../e2e/harness/moto.ts';
import { startDevTls } from './dev-tls.ts';
import { freePort, startService, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { bootstrapAccounts, projectQuotaCounted } from './dev-bootstrap.ts';
import { planDevGit, startDevGit } from './dev-git.ts';
import { startDevDns } from './dev-dns-zone.ts';
import { devDbUrl, startDevDb } from './dev-db.ts';

const devDir = join(repoRoot, '.dev');
const stateDir = join(devDir, 'state');
const envFile = join(devDir, 'env');
// `*.localhost` resolves to this machine in browsers and curl, so app URLs work with no DNS set-up.
const RUNTIME_BASE_DOMAIN = 'apps.localhost';
const started: { stop(): Promise<void> }[] = [];
const t0 = Date.now();

function say(message: string): void {
  process.stdout.write(`dev: ${message}\n`);
}

async function main(): Promise<void> {
  mkdirSync(stateDir, { recursive: true });
  rmSync(envFile, { force: true });

  say('starting the control plane, MinIO and moto');
  // cw-git's ports are chosen now: MinIO starts with a webhook target, the first instance's /_events/notify.
  const gitPlan = await planDevGit(stateDir);
  const [cluster, minio, moto] = await Promise.all([
    startControlPlane({ stateDir, throwaway: false }).then(track),
    startMinio(stateDir, savedMinioCredentials(), { webhook: gitPlan.notifyTarget }).then((m) => (track(m.service), m)),
    startMoto(stateDir).then((m) => (track(m.service), m)),
  ]);
  writeFileSync(join(stateDir, 'minio-credentials.json'), JSON.stringify(minio.s3.credentials), { mode: 0o600 });
  const bucket = 'cloudwright-dev';
  await ensureBucket(minio.s3, bucket);
  const crds = await installCrds(cluster.kubeconfig);
  say(`control plane ready (${cluster.mode}); ${crds} CRDs installed`);

  // Our binaries, run from source on the project's Node.
  const startBinary = (name: 'cw-operator' | 'cw-api' | 'cw-runtime', env: Record<string, string>) =>
    track(
      startService({
        name,
        command: toolPath('node'),
        args: [...(name === 'cw-runtime' ? RUNTIME_NODE_FLAGS : []), join(repoRoot, `bin/${name}.ts`)],
        logPath: join(stateDir, `${name}.log`),
        env: { ...process.env, KUBECONFIG: cluster.kubeconfig, ...env },
      }),
    );
  // The bucket build artifacts live in: cw-api stores uploads there, cw-runtime fetches them.
  const s3Env = {
    CW_S3_ENDPOINT: minio.endpoint,
    CW_S3_BUCKET: bucket,
    CW_S3_ACCESS_KEY_ID: minio.s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: minio.s3.credentials?.secretAccessKey ?? '',
    CW_S3_REGION: minio.s3.region,
  };
  const runtimePort = Number(process.env.CW_RUNTIME_PORT ?? (await freePort()));
  const runtimeStatusPort = await freePort();
  const runtimeUrl = `http://127.0.0.1:${runtimePort}`;
  const runtimeStatusUrl = `http://127.0.0.1:${runtimeStatusPort}`;
  // The runtime reports itself as a RuntimeReplica (and what it serves per project) in POD_NAMESPACE (default `default`), where the
  // operator and the API find it: no address is passed around, and a second `bin/cw-runtime.ts` started
  // with the same environment (another CW_RUNTIME_PORT) is found the same way.
  const runtimeEnv = { CW_RUNTIME_BASE_DOMAIN: RUNTIME_BASE_DOMAIN };
  // What cw-api presents on the runtime's status port to read apps' logs (the chart's Secret, in a cluster).
  const statusTokenEnv = { CW_RUNTIME_STATUS_TOKEN: randomBytes(24).toString('hex') };
  // cw-db's SQL endpoint, on a loopback address of its own: the one private address apps may reach.
  const dbUrl = await devDbUrl(stateDir);
  // DNS: project zones in moto's Route 53, delegation checks against a local parent zone for `test.`.
  const dns = await startDevDns(moto.endpoint);
  track(dns);
  // HTTPS: Pebble validates HTTP-01 answers on the runtime's port; the runtime serves certificates on its own.
  const runtimeHttpsPort = Number(process.env.CW_RUNTIME_HTTPS_PORT ?? (await freePort()));
  const tls = track(await startDevTls({ stateDir, kubeconfig: cluster.kubeconfig, route53: dns.env, baseDomain: RUNTIME_BASE_DOMAIN, runtimePort, runtimeHttpsPort, runtimeUrl }));
  const runtime = startBinary('cw-runtime', {
    ...tls.runtimeEnv,
    ...s3Env,
    CW_RUNTIME_HOST: '127.0.0.1',
    CW_RUNTIME_PORT: String(runtimePort),
    CW_RUNTIME_STATUS_HOST: '127.0.0.1',
    CW_RUNTIME_STATUS_PORT: String(runtimeStatusPort),
    CW_RUNTIME_BASE_DOMAIN: RUNTIME_BASE_DOMAIN,
    // Apps' URLs as a browser on this machine reaches them: http://<app>.<project>.apps.localhost:<port>.
    CW_RUNTIME_PUBLIC_SCHEME: 'http',
    CW_RUNTIME_PUBLIC_PORT: String(runtimePort),
    ...statusTokenEnv,
    CW_RUNTIME_DATABASE_URL: dbUrl,
    ...runtimeDataDir(),
  });
  const operatorPort = await freePort();
  // Git: two cw-git instances on one bucket; the operator reconciles their Repository resources.
  const git = await startDevGit({ minio, stateDir, kubeconfig: cluster.kubeconfig, plan: gitPlan });
  git.services.forEach(track);
  // Databases: cw-db restores every database from its bucket before it serves.
  const db = await startDevDb({ minio, stateDir, url: dbUrl });
  track(db.service);
  // Loopback only: apps reach cw-db's own address (127.0.0.2), and a listener on every address would be there too.
  const operator = startBinary('cw-operator', {
    CW_OPERATOR_PORT: String(operatorPort),
    CW_OPERATOR_HOST: '127.0.0.1',
    ...runtimeEnv,
    ...dns.env,
    ...s3Env,
    ...git.operatorEnv,
    ...db.operatorEnv,
    ...tls.operatorEnv,
  });
  const apiPort = Number(process.env.CW_API_PORT ?? (await freePort()));
  const api = startBinary('cw-api', {
    CW_API_PORT: String(apiPort),
    ...s3Env,
    ...runtimeEnv,
    ...statusTokenEnv,
    ...dns.env,
    ...db.env,
    ...(git.env.CW_GIT_URL ? { CW_GIT_PUBLIC_URL: git.env.CW_GIT_URL } : {}),
  });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await Promise.all([
    waitForHttp(operator, `http://127.0.0.1:${operatorPort}/healthz`, 60_000),
    waitForHttp(api, `${apiUrl}/healthz`, 60_000),
    waitForHttp(runtime, `${runtimeStatusUrl}/readyz`, 60_000),
  ]);

  const accounts = await bootstrapAccounts(cluster.kubeconfig);
  // Ready means the project takes creates: until its quota is counted they answer 503.
  if (!(await projectQuotaCounted(cluster.kubeconfig, accounts.project, 120_000))) {
    say(`the quota of project ${accounts.project} is not counted after 120 s: creates in it answer 503 until kube-controller-manager counts it`);
  }
  const env: Record<string, string> = {
    KUBECONFIG: cluster.kubeconfig,
    CW_API_URL: apiUrl,
    CW_PROJECT: accounts.project,
    CW_TOKEN: accounts.memberToken,
    CW_ADMIN_TOKEN: accounts.adminToken,
    CW_DEV_PASSWORD: accounts.memberPassword,
    CW_ADMIN_PASSWORD: accounts.adminPassword,
    CW_RUNTIME_URL: runtimeUrl,
    ...tls.env,
    ...runtimeEnv,
    // A second bin/cw-runtime.ts started with this environment gives the API its logs too.
    ...statusTokenEnv,
    ...s3Env,
    CW_ROUTE53_ENDPOINT: moto.endpoint,
    CW_DNS_PARENT_SERVER: dns.env.CW_DNS_PARENT_SERVER,
    CW_DEV_DNS_CONTROL_URL: dns.controlUrl,
    CW_OPERATOR_METRICS_URL: `http://127.0.0.1:${operatorPort}/metrics`,
    ...git.env,
    ...db.env,
  };
  writeFileSync(
    envFile,
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
  say(
    `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: API ${apiUrl}; apps ${runtimeUrl} (by Host: <app>.<project>.${RUNTIME_BASE_DOMAIN}); git ${git.env.CW_GIT_URL} and ${git.env.CW_GIT_URL_2}; databases ${db.env.CW_DB_URL}; HTTPS ${tls.env.CW_RUNTIME_HTTPS_URL} (certificates from Pebble: trust $CW_TLS_CA_FILE); environment in .dev/env; logs in .dev/state/*.log`,
  );
  say('try: set -a; . .dev/env; set +a; kubectl get crd; curl $CW_API_URL/readyz');
  say('the cw CLI: node cli/dist/bin/cw.js login --api-url $CW_API_URL (or install it: make cli-pack, docs/cli.md)');
  say(`the web console: ${apiUrl}/console/ (sign in as developer with CW_DEV_PASSWORD from .dev/env; admin with CW_ADMIN_PASSWORD); cw login's codes are approved at ${apiUrl}/device`);
  say('Ctrl-C stops everything');
}

function track<T extends { stop(): Promise<void> }>(thing: T): T {
  started.push(thing);
  return thing;
}

/**
 * Where cw-runtime unpacks builds: kept in .dev/state so a restart after a crash finds (and kills) the
 * workerd it left behind, unless the checkout's path is too long for Unix socket paths (then a temporary
 * directory of its own).
 */
function runtimeDataDir(): { CW_RUNTIME_DATA_DIR?: string } {
  const dir = join(stateDir, 'runtime');
  return join(dir, 'run').length <= 90 ? { CW_RUNTIME_DATA_DIR: dir } : {}; // the engine's own limit
}

function savedMinioCredentials() {
  const path = join(stateDir, 'minio-credentials.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { accessKeyId: string; secretAccessKey: string }) : undefined;
}

function isPlatform(thing: { stop(): Promise<void> }): boolean {
  const name = (thing as Partial<Service>).name;
  return name === 'cw-api' || name === 'cw-operator' || name === 'cw-runtime' || name === 'cw-db';
}

let stopping = false;
async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    rmSync(envFile, { force: true });
    // Our own processes first (they talk to the rest), then the infrastructure, in parallel.
    const [platform, infrastructure] = [started.filter(isPlatform), started.filter((s) => !isPlatform(s))];
    await Promise.all(platform.map((s) => s.stop().catch(() => {})));
    await Promise.all(infrastructure.map((s) => s.stop().catch(() => {})));
  }
  process.exit(code);
}

process.once('SIGINT', () => void stopAll(0));
process.once('SIGTERM', () => void stopAll(0));
main().catch(async (err: Error) => {
  process.stderr.write(`dev: ${err.message}\n`);
  await stopAll(1);
});
// Keep the process alive until a signal arrives.
setInterval(() => {
  for (const service of started as Partial<Service>[]) {
    if (service.child && service.child.exitCode !== null && !stopping) {
      process.stderr.write(`dev: ${service.name} exited with ${service.child.exitCode}; see ${service.logPath}\n`);
      void stopAll(1);
    }
  }
}, 1000);
