// `make bench-scale`: what an installation costs as it grows to many apps (issue 45). On a local control plane with
// cw-operator, cw-api and one cw-runtime watching every namespace, RuntimeApps (each with a Build of one shared
// artifact and an AppHostname) are created in projects of `--apps-per-project`, and at each size of `--sizes` the
// bench reports: etcd's size, the control plane's RSS, the time until every app is Ready, the operator's RSS and
// its restart to a steady state (every informer listed and every queue drained), cw-api's RSS and the p99 of
// `GET /v1/projects/{p}/apps` for one full project, the runtime replica's RSS (workerd included) and its restart
// to ready, and deploy → first 200 for one app; for the operator and the runtime also the V8 heap in use after a
// full GC (`--profiles <dir>` writes their heap snapshots, and CPU profiles of the creation until every app is Ready and of the deploys; `--cpu-profiles <dir>` the profiles only). Not a test: it prints figures and the issue's targets beside them.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { createMemberAccount, createOwnedProject } from '../e2e/harness/accounts.ts';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { isAlreadyExists, loadKubeConnection, objectClient, RESOURCE_QUOTAS, type KubeConnection, type KubeObject } from '../src/kube/index.ts';
import { PROJECT_QUOTA_NAME, quotaCounted, type ResourceQuota } from '../src/platform/project-quota.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { APP_HOSTNAMES, BUILDS, NAMESPACES, PROJECTS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import type { RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { projectNamespace } from '../operator/controllers/project/project-namespace.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import { artifactKey, buildIdFor, buildResourceName } from '../src/platform/artifact-keys.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { benchRun, runBench } from './run.ts';
import { firstServed, percentile, upload, type Kit } from './runtime-kit.ts';
import { residentBytes, treeResidentBytes } from '../e2e/harness/process-memory.ts';
import { processAlive } from '../e2e/harness/process.ts';
import { toolPath } from '../e2e/harness/tools.ts';
import { BASE_DOMAIN, RUNTIME_REPLICA_NAME, startScaleStack, type ScaleStack } from './scale-stack.ts';
import { cpuProfile, liveHeap } from './inspector-probe.ts';

const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    'apps-per-project': { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '32' },
    deploys: { type: 'string', default: '10' },
    'ready-timeout': { type: 'string', default: '1800' },
    profiles: { type: 'string' },
    'cpu-profiles': { type: 'string' },
  },
});

function positiveList(name: 'sizes', text: string): number[] {
  const values = text.split(',').map(Number);
  if (values.some((v) => !Number.isInteger(v) || v < 1) || values.some((v, i) => i > 0 && v <= (values[i - 1] as number))) {
    process.stderr.write(`bench: --${name} must be increasing whole numbers, comma-separated, not ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return values;
}
function positive(name: 'apps-per-project' | 'concurrency' | 'deploys' | 'ready-timeout'): number {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`bench: --${name} must be a whole number of at least 1, not ${JSON.stringify(flags[name])}\n`);
    process.exit(2);
  }
  return value;
}
const sizes = positiveList('sizes', flags.sizes ?? '');
const appsPerProject = positive('apps-per-project');
const concurrency = positive('concurrency');
const deploys = positive('deploys');
const readyTimeoutMs = positive('ready-timeout') * 1000;

const run = benchRun();
/** With --profiles <dir>, where a process's heap snapshot at `apps` goes (open it in Chrome DevTools' Memory tab). */
const snapshotPath = (process: string, apps: number): string | undefined => {
  const dir = flags.profiles;
  return dir ? join(dir, `${process}-${apps}.heapsnapshot`) : undefined;
};

/**
 * `work`, with --profiles <dir> (or --cpu-profiles <dir>: CPU profiles without heap snapshots, which take minutes at
 * 100,000 apps) under a CPU profile of the operator and the runtime (`<process>-<name>.cpuprofile`).
 */
function profiled<T>(stack: ScaleStack, name: string, work: () => Promise<T>): Promise<T> {
  const dir = flags['cpu-profiles'] ?? flags.profiles;
  if (!dir) return work();
  return cpuProfile(stack.runtime.inspectPort, join(dir, `cw-runtime-${name}.cpuprofile`), () => cpuProfile(stack.operator.inspectPort, join(dir, `cw-operator-${name}.cpuprofile`), work));
}
const say = (message: string) => process.stdout.write(`bench: ${message}\n`);

/** One artifact every app serves (a few shared builds, as the issue asks): the same digest, a key per app. */
const SHARED = artifactFromFiles({ 'worker.js': "export default { fetch() { return new Response('scale ok'); } };\n" });
const SHARED_DIGEST = createHash('sha256').update(SHARED).digest('hex');
const SHARED_BUILD = buildIdFor(SHARED_DIGEST);

/** What the processes hold with no app at all: the per-app figures are the growth over it. */
interface Baseline {
  operatorRss: number;
  runtimeRss: number;
  operatorHeap: number;
  runtimeHeap: number;
}

interface Figures {
  apps: number;
  baseline: Baseline;
  createSeconds: number;
  etcdBytes: number;
  controlPlaneRss: number;
  readySeconds: number | undefined;
  operatorRss: number;
  operatorRestartSeconds: number | undefined;
  /** The operator's V8 heap in use after a full GC (what it holds, garbage aside). */
  operatorHeap: number;
  apiRss: number;
  listP50: number;
  listP99: number;
  runtimeRss: number;
  /** Of it, cw-runtime's own Node process (the rest is workerd's). */
  runtimeNodeRss: number;
  /** cw-runtime's V8 heap in use after a full GC. */
  runtimeHeap: number;
  runtimeRestartSeconds: number;
  /** From the restart until its RuntimeReplica says it is ready: its reports are complete (the operator counts it again). */
  runtimeReportsSeconds: number;
  /** RuntimeApp status writes from the runtime's stop until its reports count and the operator's queues are empty. */
  runtimeRestartStatusWrites: number;
  /** From the restart to the first 200 of the app its first list names last. */
  runtimeLastAppSeconds: number;
  /** The replica's RSS (workerd included) and its Node process's, just after the restart: a fresh replica at this size. */
  runtimeFreshRss: number;
  runtimeFreshNodeRss: number;
  deployP50: number;
  deployP95: number;
  /** The replica's RuntimeReplicaReports once every app is Ready: objects, apps they list, bytes of JSON. */
  reports: { objects: number; listed: number; bytes: number };
}

/**
 * Runs `create`, again while the namespace's quota is still being counted (kube-controller-manager catches up) or
 * when concurrent creates raced on its usage (the apiserver's quota admission answers a conflict then).
 */
async function createCounted<T>(create: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await create();
    } catch (err) {
      if (attempt >= 50 || !(err instanceof Error) || !/status unknown for quota|resourcequotas .* the object has been modified/.test(err.message)) throw err;
      await sleep(200);
    }
  }
}

class Population {
  readonly #conn: KubeConnection;
  readonly #stack: ScaleStack;
  readonly #owner: string;
  readonly #bucket: S3ObjectStore;
  readonly #firstProject: string;
  readonly #projects = new Map<number, Promise<string>>();
  #apps = 0;

  /** `firstProject` (the one whose list is measured) gets the first `appsPerProject` apps. */
  constructor(stack: ScaleStack, owner: string, firstProject: string) {
    this.#stack = stack;
    this.#conn = loadKubeConnection(stack.kubeconfig);
    this.#owner = owner;
    this.#firstProject = firstProject;
    this.#bucket = new S3ObjectStore({ config: stack.minio.s3, bucket: stack.bucket });
  }

  get apps(): number {
    return this.#apps;
  }

  /** Creates apps until there are `target`, `appsPerProject` to a project, `concurrency` at a time. */
  async growTo(target: number): Promise<void> {
    const apps = objectClient<RuntimeApp>(this.#conn, RUNTIME_APPS);
    const builds = objectClient<Build>(this.#conn, BUILDS);
    const hostnames = objectClient<AppHostname>(this.#conn, APP_HOSTNAMES);
    let next = this.#apps;
    let done = this.#apps;
    const worker = async () => {
      while (next < target) {
        const i = next++;
        const namespace = await this.#projectFor(Math.floor(i / appsPerProject));
        const name = `app-${i}`;
        const key = artifactKey(namespace, name, SHARED_BUILD);
        const owner = await createCounted(() => apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: SHARED_BUILD } }));
        await this.#bucket.put(key, SHARED);
        await createCounted(() =>
          builds.create({
            metadata: {
              name: buildResourceName(name, SHARED_BUILD),
              namespace,
              ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name, uid: owner.metadata?.uid ?? '', controller: true }],
            },
            spec: { app: name, buildId: SHARED_BUILD, digest: SHARED_DIGEST, size: SHARED.length, objectKey: key },
          }),
        );
        await createCounted(() =>
          hostnames.create({ metadata: { name: `www.${name}.${namespace}.scale.test`, namespace }, spec: { appRef: { name }, hostname: `www.${name}.${namespace}.scale.test` } }),
        );
        done++;
        if (done % 1000 === 0) say(`${done} apps created`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    this.#apps = target;
  }

  /** The default host of the app a list of every RuntimeApp names last (by namespace, then name, as etcd keeps them). */
  async lastListedHost(): Promise<string> {
    let last = '';
    for (let index = 0; index * appsPerProject < this.#apps; index++) {
      const namespace = await this.#projectFor(index);
      const names = Array.from({ length: Math.min(appsPerProject, this.#apps - index * appsPerProject) }, (_, i) => `app-${index * appsPerProject + i}`);
      const key = `${namespace}/${names.sort().at(-1)}`;
      if (key > last) last = key;
    }
    const [namespace, name] = last.split('/');
    return `${name}.${namespace}.${BASE_DOMAIN}`;
  }

  /** A project of its own, outside the ones apps are created in. */
  extraProject(): Promise<string> {
    return this.#projectFor(-1);
  }

  /** The namespace of project `index`, made on first use (a Project owned by the bench's user, and its namespace). */
  #projectFor(index: number): Promise<string> {
    let project = this.#projects.get(index);
    if (!project) {
      project = (async () => {
        const id = index === 0 ? this.#firstProject : await createOwnedProject(this.#stack.kubeconfig, this.#owner, index < 0 ? 'scale-deploys' : `scale-${index}`);
        const owner = await objectClient<Project>(this.#conn, PROJECTS).get('', id);
        if (!owner) throw new Error(`no Project ${id}`);
        await objectClient<KubeObject>(this.#conn, NAMESPACES)
          .create(projectNamespace(owner))
          .catch((err: unknown) => {
            if (!isAlreadyExists(err)) throw err;
          });
        await this.#quotaCounted(id);
        return id;
      })();
      this.#projects.set(index, project);
    }
    return project;
  }

  /**
   * Until the operator's project quota exists and kube-controller-manager has counted it: creates wait for that. The
   * operator writes the quota, so a dead operator ends the run at once (at 74,000 apps its heap ran out under the
   * chart's former 384 MiB bound, and the run waited here); a slow count is said every minute.
   */
  async #quotaCounted(namespace: string): Promise<void> {
    const quotas = objectClient<ResourceQuota>(this.#conn, RESOURCE_QUOTAS);
    const started = performance.now();
    let said = started;
    while (performance.now() - started < readyTimeoutMs) {
      if (quotaCounted(await quotas.get(namespace, PROJECT_QUOTA_NAME))) {
        if (performance.now() - started > 10_000) say(`the project quota of ${namespace} was counted after ${seconds((performance.now() - started) / 1000)}`);
        return;
      }
      if (!processAlive(this.#stack.operator.pid())) throw new Error(`cw-operator exited while the project quota of ${namespace} was awaited: its log is in ${this.#stack.stateDir}`);
      if (performance.now() - said > 60_000) {
        said = performance.now();
        say(`still waiting for kube-controller-manager to count the project quota of ${namespace} (${seconds((said - started) / 1000)})`);
      }
      await sleep(200);
    }
    throw new Error(`the project quota of ${namespace} was not counted within ${readyTimeoutMs / 1000} s`);
  }

  destroy(): void {
    this.#bucket.destroy();
  }
}

/** etcd's database file: what the quota (2 GiB by default, 8 GiB suggested at most) is measured against. */
function etcdBytes(stack: ScaleStack): number {
  try {
    return statSync(join(stack.stateDir, 'cluster', 'etcd', 'member', 'snap', 'db')).size;
  } catch {
    return 0;
  }
}

/** Every RuntimeApp of the cluster, read in pages as a client should at this size: how many are Ready. */
async function readyCount(conn: KubeConnection): Promise<{ total: number; ready: number }> {
  let total = 0;
  let ready = 0;
  let token: string | undefined;
  do {
    const page = await conn.api.request<{ items: RuntimeApp[]; metadata?: { continue?: string } }>('GET', '/apis/cloudwright.dev/v1alpha1/runtimeapps', {
      query: { limit: '500', ...(token ? { continue: token } : {}) },
    });
    for (const app of page.items) {
      total++;
      if (app.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ready++;
    }
    token = page.metadata?.continue || undefined;
  } while (token);
  return { total, ready };
}

/**
 * Milliseconds until every one of `apps` RuntimeApps is Ready, or undefined past the timeout. Each look lists them
 * all, so it looks less often the more there are (every 2 s up to 20,000, every 10 s at 100,000): at 100,000 a look
 * is 200 pages, load on the apiserver the operator's status writes compete with.
 */
async function untilAllReady(conn: KubeConnection, apps: number, started: number): Promise<number | undefined> {
  let last = { total: 0, ready: 0 };
  const everyMs = Math.max(2_000, apps / 10);
  let saidAt = performance.now();
  while (performance.now() - started < readyTimeoutMs) {
    last = await readyCount(conn);
    if (last.total >= apps && last.ready >= apps) return performance.now() - started;
    // Where it is, every half minute: a run that converges slowly shows how (steadily, or a tail waiting on something).
    if (performance.now() - saidAt >= 30_000) {
      say(`${last.ready} of ${last.total} Ready after ${((performance.now() - started) / 1000).toFixed(0)} s`);
      saidAt = performance.now();
    }
    await sleep(everyMs);
  }
  say(`not every app Ready within ${readyTimeoutMs / 1000} s: ${last.ready} of ${last.total}`);
  return undefined;
}

/** The sum of a Prometheus metric's samples on `url` (every label set). */
async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/**
 * Stops and starts the operator; milliseconds from its start until it is steady: ready (its informers listed),
 * having queued at least `apps` keys, and every work queue empty.
 */
async function operatorRestart(stack: ScaleStack, apps: number): Promise<number | undefined> {
  await stack.operator.stop();
  const started = performance.now();
  await stack.operator.start();
  while (performance.now() - started < readyTimeoutMs) {
    const [adds, depth] = await Promise.all([metricSum(stack.operatorMetricsUrl, 'workqueue_adds_total'), metricSum(stack.operatorMetricsUrl, 'workqueue_depth')]);
    if (adds >= apps && depth === 0) return performance.now() - started;
    await sleep(250);
  }
  return undefined;
}

/** `GET /v1/projects/{project}/apps`, one at a time: p50 and p99 in ms. */
async function listLatency(stack: ScaleStack, project: string, token: string, rounds = 200): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${stack.api.port}/v1/projects/${project}/apps`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the app list answered ${res.status}`);
    times.push(performance.now() - t0);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** Deploys of a fresh build of one app in `project`, each timed from the spec change to its first 200. */
async function deployLatency(stack: ScaleStack, project: string, round: number): Promise<number[]> {
  const conn = loadKubeConnection(stack.kubeconfig);
  const kit: Kit = {
    namespace: project,
    apps: objectClient<RuntimeApp>(conn, RUNTIME_APPS),
    builds: objectClient<Build>(conn, BUILDS),
    bucket: new S3ObjectStore({ config: stack.minio.s3, bucket: stack.bucket }),
  };
  const name = `deploy-${round}`;
  const owner = await kit.apps.create({ metadata: { name, namespace: project }, spec: { displayName: name } });
  const times: number[] = [];
  try {
    for (let i = 0; i < deploys; i++) {
      const version = `v${round}.${i}`;
      const id = await upload(kit, name, owner, artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response('${version} ok'); } };\n` }));
      const t0 = performance.now();
      await kit.apps.patch(project, name, { spec: { activeBuildId: id } });
      times.push((await firstServed(stack.runtime.port, `${name}.${project}.${BASE_DOMAIN}`, `${version} `, 120_000)) - t0);
    }
    say(`deploys → first 200, in order: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  } finally {
    kit.bucket.destroy();
  }
  return times;
}

/** The writes the apiserver has answered (its `apiserver_request_total`), by `resource[/subresource] VERB`. */
async function apiserverWrites(stack: ScaleStack): Promise<Map<string, number>> {
  const { stdout } = await promisify(execFile)(toolPath('kubectl'), ['--kubeconfig', stack.kubeconfig, 'get', '--raw', '/metrics'], { maxBuffer: 256 * 1024 * 1024 });
  const writes = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="(POST|CREATE|PATCH|APPLY|UPDATE|DELETE)"/.exec(line)?.[1];
    if (!verb) continue;
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const subresource = /subresource="([^"]*)"/.exec(line)?.[1];
    const key = `${resource}${subresource ? `/${subresource}` : ''} ${verb}`;
    writes.set(key, (writes.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return writes;
}

/** RuntimeApp status writes the apiserver has answered, to count what a change costs. */
async function appStatusWrites(stack: ScaleStack): Promise<number> {
  let sum = 0;
  for (const [key, count] of await apiserverWrites(stack)) if (/^runtimeapps\/status (PATCH|APPLY|UPDATE)$/.test(key)) sum += count;
  return sum;
}

/** The writes between two readings, per app added, most first: what each app costs the apiserver (the bench's own included). */
function writesPerApp(before: Map<string, number>, after: Map<string, number>, apps: number): string {
  const rows = [...after].map(([key, count]) => [key, (count - (before.get(key) ?? 0)) / apps] as const).filter(([, n]) => n >= 0.05);
  rows.sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  return `${total.toFixed(1)} (${rows.map(([key, n]) => `${key} ${n.toFixed(2)}`).join(', ')})`;
}

/**
 * Until the operator has queued at least `adds` keys in all (the re-check of every app that a replica counting
 * again sets off) and its work queues are empty with no reconcile under way; false if not within the timeout.
 */
async function operatorQuiet(stack: ScaleStack, adds: number): Promise<boolean> {
  const deadline = performance.now() + readyTimeoutMs;
  while (performance.now() < deadline) {
    const [added, depth, active] = await Promise.all([
      metricSum(stack.operatorMetricsUrl, 'workqueue_adds_total'),
      metricSum(stack.operatorMetricsUrl, 'workqueue_depth'),
      metricSum(stack.operatorMetricsUrl, 'controller_runtime_active_workers'),
    ]);
    if (added >= adds && depth === 0 && active === 0) return true;
    await sleep(250);
  }
  return false;
}

/** What the runtime replica's RuntimeReplicaReports hold: how many, the apps they list (the rest are implied by their marks), their JSON's size. */
async function reportSizes(conn: KubeConnection): Promise<Figures['reports']> {
  const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
  // One project's report a project (1,000 at 100,000 apps): one list holds them.
  const { items } = await reports.list('default');
  return {
    objects: items.length,
    listed: items.reduce((sum, report) => sum + report.spec.apps.length, 0),
    bytes: items.reduce((sum, report) => sum + Buffer.byteLength(JSON.stringify(report.spec)), 0),
  };
}

/** When the runtime replica's RuntimeReplica next says it is ready: its reports cover every app (its first list settled). */
async function reportsComplete(conn: KubeConnection, timeoutMs: number): Promise<number> {
  const replicas = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const replica = await replicas.get('default', RUNTIME_REPLICA_NAME).catch(() => undefined);
    if (replica?.spec.ready) return performance.now();
    await sleep(100);
  }
  throw new Error(`the runtime replica's reports did not count within ${timeoutMs} ms`);
}

async function measureAt(
  stack: ScaleStack,
  population: Population,
  member: { project: string; token: string },
  deployProject: string,
  baseline: Baseline,
  target: number,
  round: number,
): Promise<Figures> {
  const conn = loadKubeConnection(stack.kubeconfig);
  const appsBefore = population.apps;
  const writesAtStart = await apiserverWrites(stack);
  const created = performance.now();
  let createSeconds = 0;
  const readyMs = await profiled(stack, `create-${target}`, async () => {
    await population.growTo(target);
    createSeconds = (performance.now() - created) / 1000;
    say(`${target} apps created in ${createSeconds.toFixed(0)} s; waiting until every one is Ready`);
    return untilAllReady(conn, target, created);
  });
  // Each figure is said as it is read, so a run that fails later (at 100,000 apps it can take hours) keeps them.
  say(`apiserver writes per app added, until every app was Ready: ${writesPerApp(writesAtStart, await apiserverWrites(stack), target - appsBefore)}`);
  const etcd = etcdBytes(stack);
  const controlPlaneRss = residentBytes(stack.controlPlanePid);
  const operatorRss = residentBytes(stack.operator.pid());
  const operatorHeap = await liveHeap(stack.operator.inspectPort, snapshotPath('cw-operator', target));
  say(`etcd ${mib(etcd)}, control plane RSS ${mib(controlPlaneRss)}, cw-operator RSS ${mib(operatorRss)} (live heap ${mib(operatorHeap)})`);
  say('restarting the operator');
  const operatorRestartMs = await operatorRestart(stack, target);
  say(`cw-operator steady ${operatorRestartMs === undefined ? 'not within the timeout' : `after ${(operatorRestartMs / 1000).toFixed(1)} s`}`);
  const apiRss = residentBytes(stack.api.pid());
  const list = await listLatency(stack, member.project, member.token);
  say(`cw-api RSS ${mib(apiRss)}; GET …/apps of a 100-app project p50 ${list.p50.toFixed(1)} ms, p99 ${list.p99.toFixed(1)} ms`);
  const runtimeRss = treeResidentBytes(stack.runtime.pid());
  const runtimeNodeRss = residentBytes(stack.runtime.pid());
  const runtimeHeap = await liveHeap(stack.runtime.inspectPort, snapshotPath('cw-runtime', target));
  say(`cw-runtime RSS ${mib(runtimeRss)} (Node ${mib(runtimeNodeRss)}, live heap ${mib(runtimeHeap)})`);
  const reports = await reportSizes(conn);
  say(`its RuntimeReplicaReports: ${reports.objects} objects listing ${reports.listed} apps, ${(reports.bytes / 1024).toFixed(0)} KiB of specs`);
  say('restarting the runtime replica');
  const lastHost = await population.lastListedHost();
  const writesBefore = await appStatusWrites(stack);
  const addsBefore = await metricSum(stack.operatorMetricsUrl, 'workqueue_adds_total');
  await stack.runtime.stop();
  // Asked from the restart on: the replica deploys that app first when a request names it, not at its turn.
  const restarted = performance.now();
  const lastApp = firstServed(stack.runtime.port, lastHost, '', readyTimeoutMs).then((at) => at - restarted);
  lastApp.catch(() => {}); // awaited below; said there if it failed
  const runtimeRestartMs = await stack.runtime.start();
  const runtimeLastAppMs = await lastApp;
  say(`the last app of its first list answered ${(runtimeLastAppMs / 1000).toFixed(1)} s after the runtime's restart`);
  const reportsMs = await reportsComplete(conn, readyTimeoutMs).then((at) => at - restarted);
  say(`its reports count (first list settled) ${(reportsMs / 1000).toFixed(1)} s after the restart`);
  const quiet = await operatorQuiet(stack, addsBefore + target);
  const restartWrites = (await appStatusWrites(stack)) - writesBefore;
  say(`RuntimeApp status writes over the runtime's restart: ${restartWrites}${quiet ? '' : ' (the operator was not quiet within the timeout)'}`);
  const runtimeFreshRss = treeResidentBytes(stack.runtime.pid());
  const runtimeFreshNodeRss = residentBytes(stack.runtime.pid());
  say(`cw-runtime ready again after ${(runtimeRestartMs / 1000).toFixed(1)} s (RSS ${mib(runtimeFreshRss)})`);
  say(`${deploys} deploys of one app`);
  const deployed = await profiled(stack, `deploys-${target}`, () => deployLatency(stack, deployProject, round));
  return {
    apps: target,
    baseline,
    createSeconds,
    etcdBytes: etcd,
    controlPlaneRss,
    readySeconds: readyMs === undefined ? undefined : readyMs / 1000,
    operatorRss,
    operatorRestartSeconds: operatorRestartMs === undefined ? undefined : operatorRestartMs / 1000,
    operatorHeap,
    apiRss,
    listP50: list.p50,
    listP99: list.p99,
    runtimeRss,
    runtimeNodeRss,
    runtimeHeap,
    runtimeRestartSeconds: runtimeRestartMs / 1000,
    runtimeLastAppSeconds: runtimeLastAppMs / 1000,
    runtimeReportsSeconds: reportsMs / 1000,
    runtimeRestartStatusWrites: restartWrites,
    runtimeFreshRss,
    runtimeFreshNodeRss,
    deployP50: percentile(deployed, 50),
    deployP95: percentile(deployed, 95),
    reports,
  };
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
const seconds = (s: number | undefined) => (s === undefined ? 'timed out' : `${s.toFixed(1)} s`);

function report(all: Figures[]): void {
  const rows: [string, (f: Figures) => string][] = [
    ['created in', (f) => seconds(f.createSeconds)],
    ['etcd database', (f) => mib(f.etcdBytes)],
    ['control plane RSS (etcd + apiserver)', (f) => mib(f.controlPlaneRss)],
    ['until every app Ready', (f) => seconds(f.readySeconds)],
    ['cw-operator RSS', (f) => mib(f.operatorRss)],
    ['  per app, over its RSS with no app', (f) => `${((f.operatorRss - f.baseline.operatorRss) / f.apps / 1024).toFixed(1)} KiB`],
    ['  its live heap (after a full GC)', (f) => mib(f.operatorHeap)],
    ['    per app, over its heap with no app', (f) => `${((f.operatorHeap - f.baseline.operatorHeap) / f.apps / 1024).toFixed(1)} KiB`],
    ['cw-operator restart to steady', (f) => seconds(f.operatorRestartSeconds)],
    ['cw-api RSS', (f) => mib(f.apiRss)],
    [`GET …/apps of a ${appsPerProject}-app project p50 / p99`, (f) => `${f.listP50.toFixed(1)} / ${f.listP99.toFixed(1)} ms`],
    ['cw-runtime replica RSS (workerd included)', (f) => mib(f.runtimeRss)],
    ['  per app, over its RSS with no app', (f) => `${((f.runtimeRss - f.baseline.runtimeRss) / f.apps / 1024).toFixed(1)} KiB`],
    ['  of it cw-runtime (Node) / workerd', (f) => `${mib(f.runtimeNodeRss)} / ${mib(f.runtimeRss - f.runtimeNodeRss)}`],
    ['  cw-runtime live heap (after a full GC)', (f) => mib(f.runtimeHeap)],
    ['    per app, over its heap with no app', (f) => `${((f.runtimeHeap - f.baseline.runtimeHeap) / f.apps / 1024).toFixed(1)} KiB`],
    ['  its RuntimeReplicaReports: objects / apps listed / KiB', (f) => `${f.reports.objects} / ${f.reports.listed} / ${(f.reports.bytes / 1024).toFixed(0)}`],
    ['cw-runtime restart to ready', (f) => seconds(f.runtimeRestartSeconds)],
    ['  RSS then, Node / workerd', (f) => `${mib(f.runtimeFreshNodeRss)} / ${mib(f.runtimeFreshRss - f.runtimeFreshNodeRss)}`],
    ['  the last app of its first list: first 200 after', (f) => seconds(f.runtimeLastAppSeconds)],
    ['  its reports count (first list settled) after', (f) => seconds(f.runtimeReportsSeconds)],
    ['  RuntimeApp status writes over it', (f) => String(f.runtimeRestartStatusWrites)],
    ['deploy → first 200 p50 / p95', (f) => `${f.deployP50.toFixed(0)} / ${f.deployP95.toFixed(0)} ms`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end (anything else running moves these numbers)\n`,
  );
  process.stdout.write(`${'apps'.padEnd(width)}  ${all.map((f) => String(f.apps).padStart(19)).join('')}\n`);
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(width)}  ${all.map((f) => value(f).padStart(19)).join('')}\n`);
  const last = all.at(-1) as Figures;
  process.stdout.write(`\ntargets at 100,000 apps (issue 45), against the largest size run (${last.apps}):\n`);
  const check = (ok: boolean, what: string) => process.stdout.write(`  ${ok ? 'PASS' : 'MISS'} ${what}\n`);
  // What the operator holds per app is its live heap's growth: its RSS also holds garbage V8 has not collected yet.
  const perApp = (last.operatorHeap - last.baseline.operatorHeap) / last.apps;
  const perAppRss = (last.operatorRss - last.baseline.operatorRss) / last.apps;
  check(perApp <= 10 * 1024, `operator ≤ 10 KiB per RuntimeApp: ${(perApp / 1024).toFixed(1)} KiB of live heap (RSS ${(perAppRss / 1024).toFixed(1)} KiB)`);
  check(last.operatorRss < 1.5 * 1024 ** 3, `operator steady RSS < 1.5 GiB: ${mib(last.operatorRss)}`);
  check((last.operatorRestartSeconds ?? Infinity) < 120, `operator restart to steady < 120 s: ${seconds(last.operatorRestartSeconds)}`);
  check(last.listP99 < 50, `API list p99 < 50 ms: ${last.listP99.toFixed(1)} ms`);
  check(last.deployP50 < 150, `deploy p50 < 150 ms: ${last.deployP50.toFixed(0)} ms`);
  const runtimeHeapPerApp = (last.runtimeHeap - last.baseline.runtimeHeap) / last.apps / 1024;
  const runtimeRssPerApp = (last.runtimeRss - last.baseline.runtimeRss) / last.apps / 1024;
  process.stdout.write(
    `  ---- runtime replica RSS independent of the apps it has not served: none was served here; it grew ${runtimeRssPerApp.toFixed(1)} KiB per app, its live heap ${runtimeHeapPerApp.toFixed(1)} KiB (the index of every app's hosts, build and report); a fresh replica ${mib(last.runtimeFreshRss)}\n`,
  );
}

async function main(): Promise<void> {
  const stack = await startScaleStack(run);
  const member = await createMemberAccount(stack.kubeconfig, 'scale');
  say(`starting cw-operator, cw-api and cw-runtime (logs in ${stack.stateDir})`);
  await Promise.all([stack.operator.start(), stack.api.start(), stack.runtime.start()]);
  const population = new Population(stack, member.user, member.project);
  // The deployed app lives apart: the measured project holds as many apps as a project may.
  const deployProject = await population.extraProject();
  const baseline: Baseline = {
    operatorRss: residentBytes(stack.operator.pid()),
    runtimeRss: treeResidentBytes(stack.runtime.pid()),
    operatorHeap: await liveHeap(stack.operator.inspectPort, snapshotPath('cw-operator', 0)),
    runtimeHeap: await liveHeap(stack.runtime.inspectPort, snapshotPath('cw-runtime', 0)),
  };
  const all: Figures[] = [];
  try {
    for (const [round, size] of sizes.entries()) {
      all.push(await measureAt(stack, population, member, deployProject, baseline, size, round));
      report(all);
    }
  } finally {
    population.destroy();
  }
}

await runBench(run, main);
