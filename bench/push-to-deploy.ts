// `make bench-push`: push → production served, as a user of push to deploy sees it (issue 40, docs/push-to-deploy.md).
// Starts the stack of make dev (bench/push-stack.ts: control plane, a MinIO whose notifications wake cw-git,
// cw-git serve+events, cw-operator with the local build runner, cw-runtime), a Repository and an app connected
// to it by an AppSource (applied through the Kubernetes API, as kubectl would), then:
//
//   1. plain worker: --pushes pushes (default 10) of a one-file worker to main with stock git, each timed from
//      just before `git push` until the runtime answers the app's host with that push's body (polled every
//      --poll-ms, default 20); p50/p95/max against the target p50 < 2 s. Each push is followed by the reference:
//      the same file packed and deployed as the API's deploy route does it (artifact stored, Build created,
//      spec.activeBuildId set: bench/runtime-kit.ts `upload`) to a second app, timed until served; the ratio
//      push / upload. Each push is broken down from the watched objects (bench/push-timeline.ts);
//   2. Next.js (--skip-nextjs leaves it out): docs/examples/nextjs pushed to a repository of its own, its source
//      built by the AppSource's command (npm install, OpenNext's build, wrangler's bundle), timed once from the
//      push until the page is served;
//   3. between them, parts of the build alone (bench/push-parts.ts): the local runner on the same worker, the
//      operator's packing of its output, and a bare node start.
//
// Prints PASS/MISS against the target; exits non-zero only when the run itself failed. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { GitClient } from '../e2e/harness/git-client.ts';
import { copyNextjsExample, NEXTJS_BUILD_COMMAND, NEXTJS_BUILD_ENV, NEXTJS_SERVED_TEXT } from '../e2e/harness/nextjs-source.ts';
import type { AppSource } from '../src/apis/v1alpha1/app-source.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { APP_SOURCES, BUILDS, PROJECT_LABEL, REPOSITORIES, RUNTIME_APPS } from '../src/platform/resources.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { readBuildLog } from '../src/platform/source-builds/build-log.ts';
import { percentile } from './git-measure.ts';
import { BASE_DOMAIN, startPushStack, type PushStack } from './push-stack.ts';
import { measureParts, type PartsFigures } from './push-parts.ts';
import { PushTimeline, type Milestones } from './push-timeline.ts';
import { benchRun, runBench } from './run.ts';
import { get, upload, type Kit } from './runtime-kit.ts';

const TARGET_P50_MS = 2000;
const SERVED_TIMEOUT_MS = 60_000;
const NEXTJS_TIMEOUT_MS = 15 * 60_000;

const { values: flags } = parseArgs({
  options: {
    pushes: { type: 'string', default: '10' },
    'poll-ms': { type: 'string', default: '20' },
    'skip-nextjs': { type: 'boolean', default: false },
  },
});
const pushes = Number(flags.pushes);
const pollMs = Number(flags['poll-ms']);

const run = benchRun();

function say(message: string): void {
  process.stdout.write(`bench: ${message}\n`);
}

const workerSource = (text: string) => `export default { fetch() { return new Response(${JSON.stringify(text)}); } };\n`;

/** Polls the entry point every `pollMs` until `host` answers 200 with a body `ok` accepts; answers Date.now() then. */
async function served(port: number, host: string, ok: (body: string) => boolean, timeoutMs = SERVED_TIMEOUT_MS): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await get(port, host).catch(() => undefined);
    if (res?.status === 200 && ok(res.body)) return Date.now();
    await sleep(pollMs);
  }
  throw new Error(`${host} not served as expected within ${timeoutMs} ms`);
}

interface Clients {
  readonly conn: ReturnType<typeof loadKubeConnection>;
  readonly apps: ReturnType<typeof objectClient<RuntimeApp>>;
  readonly sources: ReturnType<typeof objectClient<AppSource>>;
  readonly repositories: ReturnType<typeof objectClient<Repository>>;
}

/** A ready Repository `repo`, an app, and an AppSource connecting them (as kubectl apply would); answers the push URL. */
async function connect(stack: PushStack, c: Clients, repo: string, app: string, spec: Partial<AppSource['spec']> = {}): Promise<string> {
  const ns = stack.project;
  await c.repositories.create({ metadata: { name: repo, namespace: ns }, spec: { owner: ns, name: repo } });
  await until(`the repository ${repo} Ready`, async () => findCondition((await c.repositories.get(ns, repo))?.status?.conditions, 'Ready')?.status === 'True');
  await c.apps.create({ metadata: { name: app, namespace: ns, labels: { [PROJECT_LABEL]: ns } }, spec: { displayName: app } });
  await c.sources.create({ metadata: { name: app, namespace: ns }, spec: { app, repository: { owner: ns, name: repo }, previewBranches: [], ...spec } });
  return `${stack.remoteBase}/${ns}/${repo}`;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ok().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

interface PushFigure {
  readonly totalMs: number;
  readonly pushMs: number;
  readonly at: Milestones;
  readonly pushed: number;
  readonly served: number;
}

async function measureWorker(stack: PushStack, c: Clients, timeline: PushTimeline): Promise<{ push: PushFigure[]; upload: number[] }> {
  const git = await GitClient.create();
  const remote = await connect(stack, c, 'site', 'web');
  const work = await git.workdir('site');
  await git.run(['init', '-q'], { cwd: work });
  const host = `web.${stack.project}.${BASE_DOMAIN}`;

  const kit: Kit = { namespace: stack.project, apps: c.apps, builds: objectClient<Build>(c.conn, BUILDS), bucket: new S3ObjectStore({ config: stack.s3, bucket: stack.artifactBucket }) };
  const owner = await c.apps.create({ metadata: { name: 'upload', namespace: stack.project, labels: { [PROJECT_LABEL]: stack.project } }, spec: { displayName: 'upload' } });
  const uploadHost = `upload.${stack.project}.${BASE_DOMAIN}`;

  const pushOne = async (body: string): Promise<PushFigure> => {
    const commit = await git.commit(work, body, { 'worker.js': workerSource(body) });
    const at = timeline.expect('site', 'web', commit);
    const t0 = Date.now();
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const pushed = Date.now();
    const servedAt = await served(stack.runtimePort, host, (b) => b === body);
    return { totalMs: servedAt - t0, pushMs: pushed - t0, at: { ...at }, pushed: t0, served: servedAt };
  };
  const uploadOne = async (body: string): Promise<number> => {
    const t0 = Date.now();
    const artifact = artifactFromFiles({ 'worker.js': workerSource(body) });
    const id = await upload(kit, 'upload', owner, artifact);
    await c.apps.patch(stack.project, 'upload', { spec: { activeBuildId: id } });
    return (await served(stack.runtimePort, uploadHost, (b) => b === body)) - t0;
  };

  // Unmeasured: the first push creates main (and loads the worker's first isolate); the first upload likewise.
  say('warm-up push and upload');
  await pushOne(`warm-up ${randomBytes(4).toString('hex')}`);
  await uploadOne(`warm-up ${randomBytes(4).toString('hex')}`);
  const push: PushFigure[] = [];
  const uploads: number[] = [];
  for (let i = 1; i <= pushes; i++) {
    const figure = await pushOne(`push ${i} ${randomBytes(4).toString('hex')}`);
    push.push(figure);
    const up = await uploadOne(`upload ${i} ${randomBytes(4).toString('hex')}`);
    uploads.push(up);
    say(`push ${i}/${pushes}: ${figure.totalMs} ms (git push ${figure.pushMs} ms); upload deploy ${up} ms`);
  }
  return { push, upload: uploads };
}

interface NextjsFigure {
  readonly totalMs: number;
  readonly pushMs: number;
  readonly at: Milestones;
  readonly pushed: number;
  readonly served: number;
  /** The build command's own time, as the builder logged it ("the command succeeded in … s"). */
  readonly commandSeconds: number | undefined;
  readonly artifactLine: string | undefined;
}

/** A build's whole log (read a page of chunks at a time, as `cw builds logs` does). */
async function wholeLog(store: S3ObjectStore, namespace: string, build: string): Promise<string> {
  let text = '';
  let cursor: string | undefined;
  for (;;) {
    const page = await readBuildLog(store, namespace, build, cursor);
    text += page.text;
    if (page.end || page.cursor === cursor) return text;
    cursor = page.cursor;
  }
}

async function measureNextjs(stack: PushStack, c: Clients, timeline: PushTimeline): Promise<NextjsFigure> {
  const git = await GitClient.create();
  const remote = await connect(stack, c, 'next-site', 'next', {
    build: { command: NEXTJS_BUILD_COMMAND, outputDirectory: 'out' },
    // The machine's npm cache (what a build cache of a hosted platform gives a second build); telemetry off.
    environment: { production: { npm_config_cache: join(homedir(), '.npm'), ...NEXTJS_BUILD_ENV } },
  });
  const work = await git.workdir('next-site');
  await git.run(['init', '-q'], { cwd: work });
  copyNextjsExample(work);
  await git.run(['add', '-A'], { cwd: work });
  await git.run(['commit', '-q', '-m', 'next.js example'], { cwd: work });
  const commit = await git.out(['rev-parse', 'HEAD'], work);
  const at = timeline.expect('next-site', 'next', commit);
  const t0 = Date.now();
  await git.run(['push', '-q', remote, 'main'], { cwd: work });
  const pushMs = Date.now() - t0;
  const host = `next.${stack.project}.${BASE_DOMAIN}`;
  const servedAt = await served(stack.runtimePort, host, (b) => b.includes(NEXTJS_SERVED_TEXT), NEXTJS_TIMEOUT_MS);
  const text = await wholeLog(new S3ObjectStore({ config: stack.s3, bucket: stack.artifactBucket }), stack.project, `next-${commit.slice(0, 12)}`);
  const command = /the command succeeded in ([\d.]+) s/.exec(text);
  const artifactLine = /built a Next\.js app of \d+ files?/.exec(text)?.[0];
  return { totalMs: servedAt - t0, pushMs, at: { ...at }, pushed: t0, served: servedAt, commandSeconds: command ? Number(command[1]) : undefined, artifactLine };
}

const ms = (n: number) => `${Math.round(n)} ms`;
const stat = (values: readonly number[]) => `p50 ${ms(percentile(values, 50))}  p95 ${ms(percentile(values, 95))}  max ${ms(Math.max(...values))}`;

/** Each step: when it was first seen since `git push` started, and how long after the step before it. */
function steps(f: { at: Milestones; pushed: number; served: number }, pushMs?: number): { name: string; since?: number; step?: number }[] {
  const { at } = f;
  const marks: [string, number | undefined][] = [
    ['Repository annotated (cw-git events)', at.annotated],
    ['SourceBuild created (AppSource controller)', at.created],
    ['Building (slot taken, status written)', at.building],
    ['source exported (bare copy synced, archived)', at.exported],
    ['Build stored (builder run, output packed, stored)', at.stored],
    ['Succeeded (log ended, status written)', at.succeeded],
    ['spec.activeBuildId set (deploy)', at.activated],
    ['served by cw-runtime', f.served],
  ];
  const out: { name: string; since?: number; step?: number }[] = [{ name: 'git push exits', ...(pushMs === undefined ? {} : { since: pushMs, step: pushMs }) }];
  let previous = f.pushed;
  for (const [name, t] of marks) {
    if (t === undefined) {
      out.push({ name });
      continue;
    }
    out.push({ name, since: t - f.pushed, step: t - previous });
    previous = t;
  }
  return out;
}

/** The operator's reconciles so far, per controller of push to deploy: count, mean time, errors, queue retries. */
async function operatorReconciles(url: string): Promise<string[]> {
  const res = await fetch(url).catch(() => undefined);
  if (res?.status !== 200) return [`  (the operator's metrics: ${res ? `status ${res.status}` : 'unreachable'})`];
  const text = await res.text();
  const value = (name: string, label: string, controller: string) => Number(new RegExp(`^${name}\\{[^}]*${label}="${controller}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return ['sourcebuild', 'appsource', 'runtimeapp'].map((controller) => {
    const count = value('controller_runtime_reconcile_time_seconds_count', 'controller', controller);
    const sum = value('controller_runtime_reconcile_time_seconds_sum', 'controller', controller);
    const errors = value('controller_runtime_reconcile_errors_total', 'controller', controller);
    const retries = value('workqueue_retries_total', 'name', controller);
    return `  ${controller.padEnd(12)} ${count} reconciles, mean ${ms((sum / count) * 1000)}, ${errors} errors, ${retries} queue retries`;
  });
}

function report(worker: { push: PushFigure[]; upload: number[] }, reconciles: string[], parts: PartsFigures, nextjs: NextjsFigure | undefined): void {
  const totals = worker.push.map((p) => p.totalMs);
  const lines = [
    '',
    `push → production served, plain worker (${worker.push.length} pushes, polled every ${pollMs} ms; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
    `  push to deploy                    ${stat(totals)}`,
    `  git push alone                    ${stat(worker.push.map((p) => p.pushMs))}`,
    `  upload deploy (reference)         ${stat(worker.upload)}`,
    `  push / upload (p50)               ${(percentile(totals, 50) / percentile(worker.upload, 50)).toFixed(1)} ×`,
    '',
    'where a push’s time goes (each step as first seen on a watch: since `git push` started, and after the step before it):',
  ];
  const per = worker.push.map((p) => steps(p, p.pushMs));
  for (let i = 0; i < (per[0]?.length ?? 0); i++) {
    const since = per.map((s) => s[i]?.since).filter((v): v is number => v !== undefined);
    const step = per.map((s) => s[i]?.step).filter((v): v is number => v !== undefined);
    const name = (per[0]?.[i]?.name ?? '').padEnd(50);
    lines.push(
      `  ${name} ${since.length ? `at p50 ${ms(percentile(since, 50)).padStart(8)}   step p50 ${ms(percentile(step, 50)).padStart(8)}  max ${ms(Math.max(...step)).padStart(8)}` : 'not seen'}`,
    );
  }
  const runs = worker.push.map((p) => (p.at.finishedAt !== undefined && p.at.startedAt !== undefined ? p.at.finishedAt - p.at.startedAt : undefined)).filter((v): v is number => v !== undefined);
  if (runs.length) lines.push(`  (SourceBuild status: startedAt → finishedAt p50 ${ms(percentile(runs, 50))})`);
  lines.push('', 'the operator’s reconciles over the warm-up and the pushes (its /metrics):', ...reconciles);
  lines.push(
    '',
    `parts of the build measured alone (${parts.runnerMs.length} runs, same worker):`,
    `  local runner, run → finished (setpriv, prlimit, node builder: fetch, untar, tar, PUT)  ${stat(parts.runnerMs)}`,
    `  packOutput of its output                                                          ${stat(parts.packMs)}`,
    `  node -e '' (a node starting and exiting)                                          ${stat(parts.nodeMs)}`,
  );
  if (nextjs) {
    const command = nextjs.commandSeconds === undefined ? 'not in the log' : `${nextjs.commandSeconds.toFixed(1)} s`;
    lines.push(
      '',
      `push → production served, Next.js example (once): ${(nextjs.totalMs / 1000).toFixed(1)} s; the build command alone ${command} (${nextjs.artifactLine ?? 'no artifact line in the log'})`,
    );
    for (const { name, since, step } of steps(nextjs, nextjs.pushMs))
      lines.push(`  ${name.padEnd(50)} ${since === undefined ? 'not seen' : `at ${ms(since).padStart(9)}   step ${ms(step ?? 0).padStart(9)}`}`);
  }
  const p50 = percentile(totals, 50);
  lines.push('', `target: plain worker push → served p50 < ${TARGET_P50_MS} ms`, `  ${p50 < TARGET_P50_MS ? 'PASS' : 'MISS'} p50 ${ms(p50)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const stack = await startPushStack(run, {});
  const conn = loadKubeConnection(stack.kubeconfig);
  const c: Clients = {
    conn,
    apps: objectClient<RuntimeApp>(conn, RUNTIME_APPS),
    sources: objectClient<AppSource>(conn, APP_SOURCES),
    repositories: objectClient<Repository>(conn, REPOSITORIES),
  };
  const timeline = new PushTimeline(conn, stack.project);
  await timeline.start();
  run.stops.push(async () => timeline.stop());
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${run.stateDir}`);
  const worker = await measureWorker(stack, c, timeline);
  const reconciles = await operatorReconciles(stack.operatorMetricsUrl);
  say('parts of the build alone');
  const parts = await measureParts(run.stateDir, workerSource('parts'), Math.min(pushes, 5));
  let nextjs: NextjsFigure | undefined;
  if (!flags['skip-nextjs']) {
    say('Next.js example: one push, built with OpenNext (minutes)');
    nextjs = await measureNextjs(stack, c, timeline);
  }
  report(worker, reconciles, parts, nextjs);
}

await runBench(run, main);
