// `make bench-git` (and part of `make bench`): the repository service against stock git, in one run.
//
//   1. clone: `git clone --bare` of one repository through cw-git (on MinIO) and through `git http-backend`
//      (CGI, serving the same bare repository from local disk), interleaved, median of --clones each;
//   2. small push: --pushes pushes of one new commit (one small file) to HEAD's branch through cw-git, timed as the
//      client sees them (the `git push` process, start to exit): p50 and p99;
//   3. object-store requests per push and per warm read, from cw-git's `service_store_requests_total`;
//   4. the JSON API's reads (tree, blob, compare) against the git commands they stand for, run on cw-git's own
//      copy of the repository (bench/git-api.ts; --skip-api leaves it out);
//   5. `POST /api/commits` of one small file through two instances in turn, against `git commit` + `git push`,
//      and object-store requests per API commit (bench/git-api-write.ts; --skip-api-writes leaves it out);
//   6. maintenance: --maintenance-pushes small pushes to a new repository, clones of it before and after
//      checkpoint, compact, gc and fsck, against the same history pushed in one push (bench/git-maintenance.ts;
//      --skip-maintenance leaves it out);
//   7. events: push → webhook event latency with MinIO bucket notifications on and off (the bridge's sweep alone),
//      and events per second for --events-repos × --events-repo-pushes pushes, on a MinIO of its own
//      (bench/git-events.ts; --skip-events leaves it out).
//
// The repository is generated deterministically (bench/git-repo-gen.ts; cached) unless --repo names a local
// one. Prints PASS/MISS against the targets; exits non-zero only when the run itself failed.
// --reference-only measures the http-backend half alone. See bench/README.md.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import { gitServiceConfig, newTokenSecret, type GitServiceSetup } from '../e2e/harness/git-service.ts';
import { freePort, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { parseDuration } from '../git-server/config/duration.ts';
import { runGit } from '../src/git/run-git.ts';
import { COMPACT_EVERY } from '../src/repo-store/pending.ts';
import { spawnToFile } from './child.ts';
import { apiReport, measureApi, type ApiFigures, type ApiSetup } from './git-api.ts';
import { apiWriteReport, measureApiWrites, type ApiWriteFigures, type ApiWriteSetup } from './git-api-write.ts';
import { eventsReport, measureEvents, type EventsFigures, type EventsSetup } from './git-events.ts';
import { maintenanceReport, measureMaintenance, type BenchInstance, type MaintenanceFigures } from './git-maintenance.ts';
import { DEFAULT_SHAPE, generatedRepo } from './git-repo-gen.ts';
import { describeRepo, formatRequests, median, percentile, refsOf, requestsPer, storeRequests, timeGit, type RepoFacts } from './git-measure.ts';
import { benchRun, runBench } from './run.ts';

const TARGETS = { cloneRatio: 1.3, pushP50Ms: 150, requestsPerPush: 5, requestsPerWarmRead: 1 };
const REPO = 'bench/repo';

const { values: flags } = parseArgs({
  options: {
    repo: { type: 'string' },
    clones: { type: 'string', default: '5' },
    pushes: { type: 'string', default: '50' },
    'warm-reads': { type: 'string', default: '50' },
    commits: { type: 'string', default: String(DEFAULT_SHAPE.commits) },
    files: { type: 'string', default: String(DEFAULT_SHAPE.files) },
    seed: { type: 'string', default: String(DEFAULT_SHAPE.seed) },
    'reference-only': { type: 'boolean', default: false },
    'skip-api': { type: 'boolean', default: false },
    'api-connections': { type: 'string', default: '8' },
    'api-rounds': { type: 'string', default: '2' },
    'api-duration': { type: 'string', default: '3' },
    compares: { type: 'string', default: '20' },
    'skip-api-writes': { type: 'boolean', default: false },
    'api-commits': { type: 'string', default: '40' },
    'skip-maintenance': { type: 'boolean', default: false },
    'maintenance-pushes': { type: 'string', default: '1000' },
    'skip-events': { type: 'boolean', default: false },
    'events-pushes': { type: 'string', default: '100' },
    'events-repos': { type: 'string', default: '50' },
    'events-repo-pushes': { type: 'string', default: '20' },
    'events-in-flight': { type: 'string', default: '4' },
    'events-sweep-interval': { type: 'string', default: '1s' },
  },
});
const clones = positive('clones');
const pushes = positive('pushes');
const warmReads = positive('warm-reads');
const maintenancePushes = positive('maintenance-pushes');

function positive(
  name:
    | 'clones'
    | 'pushes'
    | 'warm-reads'
    | 'commits'
    | 'files'
    | 'seed'
    | 'api-connections'
    | 'api-rounds'
    | 'api-duration'
    | 'compares'
    | 'api-commits'
    | 'maintenance-pushes'
    | 'events-pushes'
    | 'events-repos'
    | 'events-repo-pushes'
    | 'events-in-flight',
): number {
  const value = Number(flags[name]);
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`bench: --${name} must be a positive integer\n`);
    process.exit(2);
  }
  return value;
}

const run = benchRun();
const { stateDir, stops } = run;
const node = toolPath('node');
const say = (message: string) => process.stdout.write(`bench: ${message}\n`);

interface Server {
  readonly name: string;
  /** The repository's URL. */
  readonly url: string;
  /** `git -c ...` options every client command against it takes (the token). */
  readonly gitConfig: string[];
}

/** The bare repository both servers serve: a mirror of the source, heads and tags only (what cw-git gets pushed). */
async function referenceRepo(source: string): Promise<string> {
  const dir = join(stateDir, 'reference', `${REPO}.git`);
  mkdirSync(join(dir, '..'), { recursive: true });
  await runGit(['clone', '--quiet', '--mirror', source, dir]);
  const others = (await refsOf(dir)).filter(([name]) => !name.startsWith('refs/heads/') && !name.startsWith('refs/tags/'));
  if (others.length > 0) await runGit(['-C', dir, 'update-ref', '--stdin'], { stdin: others.map(([name]) => `delete ${name}\n`).join('') });
  return dir;
}

async function startReference(root: string): Promise<Server & { service: Service }> {
  const port = await freePort();
  const service = spawnToFile({
    name: 'git-http-backend',
    command: node,
    args: [join(repoRoot, 'bench/git-http-backend.ts'), '--root', root, '--port', String(port)],
    env: process.env,
    logPath: join(stateDir, 'git-http-backend.log'),
  });
  stops.push(() => service.stop());
  const url = `http://127.0.0.1:${port}/${REPO}.git`;
  await waitForHttp(service, `${url}/info/refs?service=git-upload-pack`, 30_000);
  return { name: 'git http-backend', url, gitConfig: [], service };
}

type CwGit = Server & { service: Service; token: string; base: string; cacheCopy: string; setup: GitServiceSetup; another: () => Promise<string> };

async function startCwGit(defaultBranch: string): Promise<CwGit> {
  const minio = await startMinio(stateDir);
  stops.push(() => minio.service.stop());
  const tokenSecret = newTokenSecret();
  const setup = { s3: minio.s3, bucket: await createRunBucket(minio, 'cw-bench-git'), tokenSecret };
  const { service, base, dir } = await spawnCwGit(setup, 'cw-git');
  const token = mintToken({ sub: 'bench', scopes: ['read', 'write'] }, tokenSecret);
  const created = await fetch(`${base}/${REPO}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ default_branch: defaultBranch }),
  });
  if (created.status !== 201) throw new Error(`PUT /${REPO} answered ${created.status}: ${await created.text()}`);
  // Where cw-git keeps its copy of the repository (RepoCache.dirOf), which the API reads from.
  const cacheCopy = join(dir, 'cache', 'repos', `${REPO}.git`);
  // A second instance on the same bucket, for the API writes (answers its base URL).
  const another = async () => (await spawnCwGit(setup, 'cw-git-2')).base;
  return { name: 'cw-git', url: `${base}/${REPO}`, gitConfig: ['-c', `http.extraHeader=Authorization: Bearer ${token}`], service, token, base, cacheCopy, setup, another };
}

async function spawnCwGit(setup: GitServiceSetup, name: string, env: Record<string, string> = {}, port?: number): Promise<{ service: Service; base: string; dir: string; stop: () => Promise<void> }> {
  port ??= await freePort();
  const config = await gitServiceConfig(setup, port);
  const removeDir = async () => rmSync(config.dir, { recursive: true, force: true });
  stops.push(removeDir);
  const service = spawnToFile({
    name,
    command: node,
    args: [join(repoRoot, 'bin/cw-git.ts'), 'serve', '--config', config.path],
    env: { ...process.env, ...config.env, ...env, CW_LOG_LEVEL: 'warn' },
    logPath: join(stateDir, `${name}.log`),
  });
  stops.push(() => service.stop());
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${base}/readyz`, 60_000);
  const stop = async () => {
    await service.stop();
    await removeDir();
  };
  // Stopping twice is harmless: the run's stops do it again at the end.
  return { service, base, dir: config.dir, stop };
}

/** Times `git clone --bare` from each server in turn (the order alternating per round); answers seconds. */
async function measureClones(servers: readonly Server[], expected: readonly [string, string][]): Promise<Map<string, number[]>> {
  const times = new Map(servers.map((s) => [s.name, [] as number[]]));
  for (let round = 0; round <= clones; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const server of order) {
      const dest = join(stateDir, 'clones', `${round}-${server.name.replace(/\W+/g, '-')}.git`);
      const seconds = await timeGit([...server.gitConfig, 'clone', '--quiet', '--bare', server.url, dest]);
      // Round 0 warms both (page cache, cw-git's local copy) and checks what arrived; it is not counted.
      if (round === 0) {
        const got = JSON.stringify(await refsOf(dest));
        if (got !== JSON.stringify(expected)) throw new Error(`a clone through ${server.name} has other refs than the repository`);
        await runGit(['-C', dest, 'fsck', '--connectivity-only', '--no-dangling']);
        say(`warm-up clone through ${server.name}: ${seconds.toFixed(2)} s, refs and connectivity checked`);
      } else {
        times.get(server.name)?.push(seconds);
      }
      rmSync(dest, { recursive: true, force: true });
    }
  }
  return times;
}

/** Pushes one new commit on `branch` at a time, built with plumbing in a bare clone; answers each push's ms. */
async function measurePushes(server: Server & { base: string; token: string }, branch: string): Promise<{ ms: number[]; requests: Map<string, number> }> {
  const dir = join(stateDir, 'pusher.git');
  await runGit([...server.gitConfig, 'clone', '--quiet', '--bare', server.url, dir]);
  const index = join(stateDir, 'pusher.index');
  const env = { GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.test', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.test' };
  const git = async (args: string[], stdin?: string) => (await runGit(['-C', dir, ...args], { env, ...(stdin === undefined ? {} : { stdin }) })).stdout.toString().trim();
  let parent = await git(['rev-parse', `refs/heads/${branch}`]);
  await git(['read-tree', parent]);
  const ms: number[] = [];
  const before = await storeRequests(server.base, server.token);
  for (let i = 1; i <= pushes; i++) {
    const blob = await git(['hash-object', '-w', '--stdin'], `small change ${i}\n`);
    await git(['update-index', '--add', '--cacheinfo', `100644,${blob},bench/push-${i % 10}.txt`]);
    const commit = await git(['commit-tree', await git(['write-tree']), '-p', parent, '-m', `bench push ${i}`]);
    ms.push((await timeGit([...server.gitConfig, '-C', dir, 'push', '--quiet', server.url, `${commit}:refs/heads/${branch}`])) * 1000);
    parent = commit;
  }
  return { ms, requests: requestsPer(before, await storeRequests(server.base, server.token), pushes) };
}

/** Store requests per warm read: `GET /info/refs` (protocol v0, one request) with the head unchanged, and per `git ls-remote`. */
async function measureWarmReads(
  server: Server & { base: string; token: string },
): Promise<{ perRequest: Map<string, number>; perLsRemote: Map<string, number>; perPushAdvertisement: Map<string, number> }> {
  const get = async (service = 'git-upload-pack') => {
    const res = await fetch(`${server.url}/info/refs?service=${service}`, { headers: { authorization: `Bearer ${server.token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET info/refs answered ${res.status}`);
  };
  await get();
  // Reading /metrics is no store request, so the differences are the reads' alone.
  const before = await storeRequests(server.base, server.token);
  for (let i = 0; i < warmReads; i++) await get();
  const middle = await storeRequests(server.base, server.token);
  const lsRemotes = 10;
  for (let i = 0; i < lsRemotes; i++) await runGit([...server.gitConfig, 'ls-remote', '--quiet', server.url]);
  const after = await storeRequests(server.base, server.token);
  // The ref advertisement a push starts with, so the push request's own cost can be told apart.
  for (let i = 0; i < warmReads; i++) await get('git-receive-pack');
  const last = await storeRequests(server.base, server.token);
  return {
    perRequest: requestsPer(before, middle, warmReads),
    perLsRemote: requestsPer(middle, after, lsRemotes),
    perPushAdvertisement: requestsPer(after, last, warmReads),
  };
}

async function main(): Promise<void> {
  const source = flags.repo ? resolve(flags.repo) : await generatedRepo({ commits: positive('commits'), files: positive('files'), seed: positive('seed') }, say);
  const reference = await referenceRepo(source);
  const facts = await describeRepo(reference);
  say(
    `repository ${flags.repo ? source : 'generated'}: ${facts.commits} commits, ${facts.objects} objects, ${facts.refs.length} refs, pack ${(facts.packBytes / 2 ** 20).toFixed(1)} MiB${facts.bitmaps ? ', with bitmaps' : ''}; logs in ${stateDir}`,
  );
  const servers: Server[] = [await startReference(join(stateDir, 'reference'))];
  let cw: CwGit | undefined;
  if (!flags['reference-only']) {
    cw = await startCwGit(facts.headBranch);
    say(`pushing the repository into cw-git (all branches and tags)`);
    const seconds = await timeGit([...cw.gitConfig, '-C', reference, 'push', '--quiet', cw.url, 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*']);
    say(`pushed in ${seconds.toFixed(1)} s`);
    servers.push(cw);
  }
  say(`${clones} clones through each server, interleaved, after one warm-up clone each`);
  const cloneTimes = await measureClones(servers, facts.refs);
  const pushed = cw ? await measurePushes(cw, facts.headBranch) : undefined;
  const reads = cw ? await measureWarmReads(cw) : undefined;
  const api = cw && !flags['skip-api'] ? await measureApiReads(cw, facts.headBranch) : undefined;
  const writes = cw && !flags['skip-api-writes'] ? await measureApiCommits(cw, facts.headBranch) : undefined;
  const maintained = cw && !flags['skip-maintenance'] ? await measureMaintenanceSection(cw) : undefined;
  const events = cw && !flags['skip-events'] ? await measureEventsSection() : undefined;
  report(facts, cloneTimes, pushed, reads);
  if (api) process.stdout.write(`${apiReport(...api).join('\n')}\n`);
  if (writes) process.stdout.write(`${apiWriteReport(...writes).join('\n')}\n`);
  if (maintained) process.stdout.write(`${maintenanceReport(maintained).join('\n')}\n`);
  if (events) process.stdout.write(`${eventsReport(...events).join('\n')}\n`);
}

/** Push → event latency with bucket notifications on and off, and a burst's events per second (bench/git-events.ts). */
async function measureEventsSection(): Promise<[EventsFigures, EventsSetup]> {
  const sweepInterval = flags['events-sweep-interval'];
  let sweepMs: number;
  try {
    sweepMs = parseDuration(sweepInterval);
  } catch {
    throw new Error(`--events-sweep-interval: "${sweepInterval}" is not a duration (500ms, 1s, 5s)`);
  }
  if (sweepMs <= 0) throw new Error('--events-sweep-interval must be longer than 0');
  const setup: EventsSetup = {
    // A MinIO of its own in here: its webhook target is fixed when it starts.
    workDir: join(stateDir, 'events'),
    stops,
    startInstance: async (instanceSetup, name, env, port) => {
      const { base, stop } = await spawnCwGit(instanceSetup, name, env, port);
      return { base, stop };
    },
    latencyPushes: positive('events-pushes'),
    repos: positive('events-repos'),
    repoPushes: positive('events-repo-pushes'),
    inFlight: positive('events-in-flight'),
    sweepInterval,
    sweepMs,
    say,
  };
  return [await measureEvents(setup), setup];
}

/** Small pushes, then clones before and after maintenance, against a single-pack copy (bench/git-maintenance.ts). */
async function measureMaintenanceSection(server: CwGit): Promise<MaintenanceFigures> {
  let instances = 0;
  const startInstance = async (): Promise<BenchInstance> => {
    // The bench runs the maintenance units itself: an instance's own maintainer (the maintain role) must not
    // compact the repository between the measurements.
    const { base, stop } = await spawnCwGit(server.setup, `cw-git-maintenance-${++instances}`, { SERVICE__SERVER__ROLES: 'serve' });
    return { base, stop };
  };
  const workDir = join(stateDir, 'maintenance');
  mkdirSync(workDir, { recursive: true });
  return measureMaintenance({ s3: server.setup.s3, bucket: server.setup.bucket, token: server.token, startInstance, pushes: maintenancePushes, workDir, say });
}

/** `POST /api/commits` through cw-git and a second instance in turn, against git commit + push (bench/git-api-write.ts). */
async function measureApiCommits(server: CwGit, branch: string): Promise<[ApiWriteSetup, ApiWriteFigures]> {
  const setup: ApiWriteSetup = { bases: [server.base, await server.another()], repo: REPO, token: server.token, branch, commits: positive('api-commits'), workDir: join(stateDir, 'committer'), say };
  say(`${setup.commits} API commits through two instances in turn, then as many git commit + push`);
  return [setup, await measureApiWrites(setup)];
}

/** The JSON API against git run directly on cw-git's copy of the repository (synced by the reads before: warm). */
async function measureApiReads(server: CwGit, branch: string): Promise<[ApiSetup, ApiFigures]> {
  if (!existsSync(join(server.cacheCopy, 'HEAD'))) throw new Error(`cw-git's copy of the repository is not at ${server.cacheCopy}`);
  const setup: ApiSetup = {
    base: server.base,
    repo: REPO,
    token: server.token,
    dir: server.cacheCopy,
    branch,
    connections: positive('api-connections'),
    rounds: positive('api-rounds'),
    durationSeconds: positive('api-duration'),
    compares: positive('compares'),
    depth: 1000,
    node,
    say,
  };
  return [setup, await measureApi(setup)];
}

type Pushed = Awaited<ReturnType<typeof measurePushes>>;
type Reads = Awaited<ReturnType<typeof measureWarmReads>>;

function report(facts: RepoFacts, cloneTimes: Map<string, number[]>, pushed: Pushed | undefined, reads: Reads | undefined): void {
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const reference = median(cloneTimes.get('git http-backend') ?? []);
  const lines = [
    '',
    `git ${facts.gitVersion}; ${facts.commits} commits, ${facts.objects} objects, ${facts.refs.length} refs, ${(facts.packBytes / 2 ** 20).toFixed(1)} MiB packed (${facts.headBranch} at ${facts.head.slice(0, 12)})`,
    '',
    `git clone --bare (protocol v2), ${clones} per server, interleaved     median    min     max   ratio`,
    ...[...cloneTimes].map(([name, times]) => {
      const m = median(times);
      return `  ${name.padEnd(62)}${m.toFixed(2).padStart(6)} s${Math.min(...times)
        .toFixed(2)
        .padStart(6)}${Math.max(...times)
        .toFixed(2)
        .padStart(8)}${(m / reference).toFixed(2).padStart(8)}`;
    }),
  ];
  const cwTimes = cloneTimes.get('cw-git');
  if (cwTimes) {
    const fastest = Math.min(...cwTimes) / Math.min(...(cloneTimes.get('git http-backend') ?? []));
    lines.push(`  fastest clone through cw-git / fastest through http-backend: ${fastest.toFixed(2)} (less moved by other load on the machine)`);
  }
  if (pushed) {
    lines.push(
      '',
      `small push through cw-git (${pushes} pushes of one commit, as the client sees it)   p50 ${percentile(pushed.ms, 50).toFixed(0)} ms   p99 ${percentile(pushed.ms, 99).toFixed(0)} ms   max ${Math.max(...pushed.ms).toFixed(0)} ms`,
    );
  }
  if (reads && pushed) {
    lines.push(
      `object-store requests per git push (GET info/refs + POST git-receive-pack): ${formatRequests(pushed.requests)}`,
      `  of which the ref advertisement (GET info/refs?service=git-receive-pack): ${formatRequests(reads.perPushAdvertisement)}`,
      `object-store requests per warm read (GET info/refs, head unchanged): ${formatRequests(reads.perRequest)}`,
      `object-store requests per warm \`git ls-remote\` (protocol v2: two HTTP requests): ${formatRequests(reads.perLsRemote)}`,
    );
  }
  lines.push(
    `(${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: clients, servers and MinIO share them)`,
    '',
    'targets',
  );
  if (cwTimes) {
    const ratio = median(cwTimes) / reference;
    lines.push(`  ${mark(ratio <= TARGETS.cloneRatio)} clone time ≤ ${TARGETS.cloneRatio} × http-backend: ${ratio.toFixed(2)}`);
  }
  if (pushed && reads) {
    const p50 = percentile(pushed.ms, 50);
    // The budget is the push request's (walgit's ROUNDTRIPS counts the same: freshness GET, pack, idx, log, CAS);
    // the advertisement before it is a warm read, budgeted on its own line.
    const perPush = (pushed.requests.get('total') ?? 0) - (reads.perPushAdvertisement.get('total') ?? 0);
    // Every COMPACT_EVERY-th pack a publish also PUTs the maintenance marker (docs/repository-storage.md):
    // amortized, not per push; at most this many of the measured pushes carried one.
    const markerShare = Math.ceil(pushes / COMPACT_EVERY) / pushes;
    const perRead = reads.perRequest.get('total') ?? 0;
    lines.push(
      `  ${mark(p50 < TARGETS.pushP50Ms)} small push p50 < ${TARGETS.pushP50Ms} ms: ${p50.toFixed(0)} ms`,
      `  ${mark(perPush - markerShare <= TARGETS.requestsPerPush)} object-store requests per push request (POST git-receive-pack) ≤ ${TARGETS.requestsPerPush}: ${perPush.toFixed(2)} (of which ≤ ${markerShare.toFixed(2)} the maintenance marker, one PUT per ${COMPACT_EVERY} packs)`,
      `  ${mark(perRead <= TARGETS.requestsPerWarmRead)} object-store requests per warm read = ${TARGETS.requestsPerWarmRead}: ${perRead.toFixed(2)}`,
    );
  }
  if (!cwTimes) lines.push('  (--reference-only: cw-git not measured)');
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runBench(run, main);
