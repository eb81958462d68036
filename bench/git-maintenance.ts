// The maintenance section of `make bench-git` (--skip-maintenance leaves it out): what repository maintenance
// buys a repository that many small pushes left with one pack each, against the same history in one pack.
//
//   1. --maintenance-pushes (default 1000) pushes of one small commit each to a new repository, one at a time,
//      with `git push` over HTTP through one cw-git instance: one pack per push;
//   2. the reference: the same history pushed in one push, from a fresh clone, to another new repository;
//   3. clones of both: cold (a fresh instance with an empty cache directory per round, so the clone pays the
//      bucket downloads) and warm (the last of those instances again), with each clone's bucket requests from
//      the instance's `service_store_requests_total`; the repositories' bucket objects (a LIST of the
//      prefix) and live packs;
//   4. the product's maintenance units (`RepoMaintenance`, in this process, on the same bucket): checkpoint,
//      compact, gc, fsck, each timed, with its summary and bucket requests;
//   5. the measurements of 3 again; every clone's refs checked, git fsck of the first round's clones.
// The target: after maintenance, within 1.1 × of the single-pack copy. See bench/README.md.
import { packBytes } from '../src/repo-store/state.ts';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { runGit } from '../src/git/run-git.ts';
import { listAll } from '../src/object-store/list-all.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoMaintenance, silentContext, type MaintenanceOp } from '../src/repo-maintenance/index.ts';
import { parseRepoPath, repoPrefix, RepoStore } from '../src/repo-store/index.ts';
import { CLIENT_ENV, median, parseStoreRequests, percentile, refsOf, requestsPer, storeRequests, timeGit } from './git-measure.ts';

export const MAINTENANCE_TARGET_RATIO = 1.1;
/** Even, so that each repository is cloned first in as many rounds as the other. */
const COLD_ROUNDS = 6;
const WARM_ROUNDS = 10;
const BRANCH = 'main';
const PUSHED = 'bench/small-pushes';
const SINGLE = 'bench/one-push';
/** One commit each, cloned first from every fresh instance: the measured cold clones then pay an empty cache, not cold code. */
const WARM_UPS = ['bench/warm-up-1', 'bench/warm-up-2'];
const UNITS: readonly MaintenanceOp[] = ['checkpoint', 'compact', 'gc', 'fsck'];
const GRACE_MS = 0;
const LOG_RETENTION_MS = 0;

export interface BenchInstance {
  /** `http://127.0.0.1:port` */
  readonly base: string;
  stop(): Promise<void>;
}

export interface MaintenanceSetup {
  readonly s3: S3Config;
  readonly bucket: string;
  /** Read and write scopes. */
  readonly token: string;
  /** A cw-git instance on the bucket with an empty cache directory and no maintainer of its own. */
  readonly startInstance: () => Promise<BenchInstance>;
  readonly pushes: number;
  /** An empty directory. */
  readonly workDir: string;
  readonly say: (message: string) => void;
}

/** One repository at one point: clone times (ms) and bucket requests per clone, cold and warm; its bucket objects. */
export interface Snapshot {
  readonly coldMs: number[];
  readonly coldRequests: number[];
  readonly warmMs: number[];
  readonly warmRequests: number[];
  readonly livePacks: number;
  /** The live packs' bytes. */
  readonly packBytes: number;
  /** Objects under the repository's prefix, by first path segment (`packs`, `log`, …), and `total`. */
  readonly objects: Map<string, number>;
}

export interface UnitRun {
  readonly op: MaintenanceOp;
  readonly seconds: number;
  readonly summary: string;
  readonly requests: Map<string, number>;
}

export interface MaintenanceFigures {
  readonly pushMs: number[];
  readonly pushSeconds: number;
  readonly onePushSeconds: number;
  readonly before: Snapshot;
  readonly after: Snapshot;
  /** The single-pack copy, measured interleaved with `before`, and with `after` (the one the target compares with). */
  readonly referenceBefore: Snapshot;
  readonly reference: Snapshot;
  readonly units: UnitRun[];
  /** The branch's tip, as `git ls-remote` answered it for both repositories after maintenance. */
  readonly tip: string;
}

export async function measureMaintenance(setup: MaintenanceSetup): Promise<MaintenanceFigures> {
  const { say } = setup;
  const registry = new Registry();
  const store = new S3ObjectStore({ config: setup.s3, bucket: setup.bucket, registry });
  const repos = new RepoStore({ store, registry: new Registry() });
  const client = new Client(setup.token, setup.workDir);
  try {
    const pusher = await setup.startInstance();
    for (const repo of [PUSHED, SINGLE, ...WARM_UPS]) await createRepo(pusher.base, repo, setup.token);
    const source = join(setup.workDir, 'source.git');
    const commits = await commitChain(source, setup.pushes);
    const tips = { tip: commits.at(-1) as string, warmUp: commits[0] as string };
    const { tip } = tips;
    for (const repo of WARM_UPS) await client.git(['-C', source, 'push', '--quiet', url(pusher.base, repo), `${tips.warmUp}:refs/heads/${BRANCH}`]);

    // The commits exist beforehand (fast-import), so the loop is one `git push` of the next commit each: the
    // client sends what a commit made in a working clone would (one commit, its trees, one blob) and nothing else.
    say(`${setup.pushes} pushes of one small commit each to ${PUSHED}, one at a time`);
    const pushMs: number[] = [];
    const start = performance.now();
    for (const [i, commit] of commits.entries()) {
      pushMs.push(1000 * (await client.time(['-C', source, 'push', '--quiet', url(pusher.base, PUSHED), `${commit}:refs/heads/${BRANCH}`])));
      if ((i + 1) % 100 === 0) say(`  ${i + 1} pushes, ${((1000 * (i + 1)) / (performance.now() - start)).toFixed(1)} pushes/s so far`);
    }
    const pushSeconds = (performance.now() - start) / 1000;
    const packs = (await repos.readHead(PUSHED, { fresh: true })).packs.length;
    if (packs !== setup.pushes) throw new Error(`${PUSHED} has ${packs} live packs after ${setup.pushes} pushes, not one per push: did something compact it meanwhile?`);

    // The reference: a fresh clone's branch pushed whole to an empty repository, so the bucket gets one pack.
    const fresh = join(setup.workDir, 'fresh-clone.git');
    await client.git(['clone', '--quiet', '--bare', url(pusher.base, PUSHED), fresh]);
    const onePushSeconds = await client.time(['-C', fresh, 'push', '--quiet', url(pusher.base, SINGLE), `refs/heads/${BRANCH}:refs/heads/${BRANCH}`]);
    await pusher.stop();

    say(`clones of ${PUSHED} (${setup.pushes} packs) and ${SINGLE}: ${COLD_ROUNDS} cold (a fresh instance each), ${WARM_ROUNDS} warm`);
    const [before, referenceBefore] = await measureClones(setup, client, repos, store, tips);

    say(`maintenance of ${PUSHED} in this process: ${UNITS.join(', ')}`);
    const maintenance = new RepoMaintenance({ repos, store, host: 'bench', workDir: join(setup.workDir, 'maintainer'), graceMs: GRACE_MS, logRetentionMs: LOG_RETENTION_MS });
    const units: UnitRun[] = [];
    for (const op of UNITS) {
      const requestsBefore = parseStoreRequests(await registry.metrics());
      const t0 = performance.now();
      const { summary } = await maintenance.run(PUSHED, op, silentContext());
      const seconds = (performance.now() - t0) / 1000;
      units.push({ op, seconds, summary, requests: requestsPer(requestsBefore, parseStoreRequests(await registry.metrics()), 1) });
      say(`  ${op}: ${seconds.toFixed(2)} s, ${summary}`);
      if (op === 'fsck' && !summary.endsWith(': clean')) throw new Error(`fsck of ${PUSHED} after maintenance: ${summary}`);
    }

    say(`the same clones after maintenance`);
    const [after, reference] = await measureClones(setup, client, repos, store, tips);
    const checker = await setup.startInstance();
    const lsRemote = async (repo: string) => (await client.git(['ls-remote', url(checker.base, repo), `refs/heads/${BRANCH}`])).trim();
    const [pushedRef, singleRef] = [await lsRemote(PUSHED), await lsRemote(SINGLE)];
    await checker.stop();
    if (pushedRef !== singleRef || !pushedRef.startsWith(tip)) throw new Error(`git ls-remote after maintenance: ${PUSHED} answers "${pushedRef}", ${SINGLE} "${singleRef}", expected ${tip}`);
    return { pushMs, pushSeconds, onePushSeconds, before, after, referenceBefore, reference, units, tip };
  } finally {
    store.destroy();
  }
}

/** The stock git client, with the bench's token and the machine's configuration left out. */
class Client {
  readonly #header: string[];
  readonly #dir: string;
  #clones = 0;

  constructor(token: string, workDir: string) {
    this.#header = ['-c', `http.extraHeader=Authorization: Bearer ${token}`];
    this.#dir = join(workDir, 'clones');
    mkdirSync(this.#dir, { recursive: true });
  }

  async git(args: string[]): Promise<string> {
    return (await runGit([...this.#header, ...args], { env: CLIENT_ENV, maxStdoutBytes: 1 << 20 })).stdout.toString();
  }

  /** Seconds, process start to exit. */
  time(args: string[]): Promise<number> {
    return timeGit([...this.#header, ...args]);
  }

  /** `git clone --bare` of `repoUrl`, timed; checks the refs are exactly `refs/heads/main` at `tip` (and with `fsck`, the objects too). */
  async clone(repoUrl: string, tip: string, fsck = false): Promise<number> {
    const dest = join(this.#dir, `${this.#clones++}.git`);
    const seconds = await this.time(['clone', '--quiet', '--bare', repoUrl, dest]);
    const refs = JSON.stringify(await refsOf(dest));
    if (refs !== JSON.stringify([[`refs/heads/${BRANCH}`, tip]])) throw new Error(`a clone of ${repoUrl} has refs ${refs}, expected ${BRANCH} at ${tip}`);
    if (fsck) await runGit(['-C', dest, 'fsck', '--no-dangling', '--no-progress'], { env: CLIENT_ENV });
    rmSync(dest, { recursive: true, force: true });
    return seconds;
  }
}

/**
 * Cold clones of the pushed repository and the single-pack copy, interleaved (the order alternating per round),
 * each round on a fresh instance; then warm clones of both on the last of them. Answers [pushed, single].
 */
async function measureClones(setup: MaintenanceSetup, client: Client, repos: RepoStore, store: S3ObjectStore, tips: { tip: string; warmUp: string }): Promise<[Snapshot, Snapshot]> {
  const names = [PUSHED, SINGLE];
  const figures = names.map(() => ({ coldMs: [] as number[], coldRequests: [] as number[], warmMs: [] as number[], warmRequests: [] as number[] }));
  const order = (round: number) => (round % 2 === 0 ? [0, 1] : [1, 0]);
  const measured = async (instance: BenchInstance, i: number, fsck = false) => {
    const before = await storeRequests(instance.base, setup.token);
    const ms = 1000 * (await client.clone(url(instance.base, names[i] as string), tips.tip, fsck));
    const after = await storeRequests(instance.base, setup.token);
    return { ms, requests: (after.get('total') ?? 0) - (before.get('total') ?? 0) };
  };
  let instance: BenchInstance | undefined;
  for (let round = 0; round < COLD_ROUNDS; round++) {
    await instance?.stop();
    instance = await setup.startInstance();
    for (const repo of WARM_UPS) await client.clone(url(instance.base, repo), tips.warmUp);
    for (const i of order(round)) {
      const { ms, requests } = await measured(instance, i, round === 0);
      figures[i]?.coldMs.push(ms);
      figures[i]?.coldRequests.push(requests);
    }
  }
  if (!instance) throw new Error('no instance');
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const i of order(round)) {
      const { ms, requests } = await measured(instance, i);
      figures[i]?.warmMs.push(ms);
      figures[i]?.warmRequests.push(requests);
    }
  }
  await instance.stop();
  const snapshot = async (i: number): Promise<Snapshot> => {
    const name = names[i] as string;
    const { packs } = await repos.readHead(name, { fresh: true });
    return { ...(figures[i] as Snapshot), livePacks: packs.length, packBytes: packBytes(packs), objects: await bucketObjects(store, name) };
  };
  return [await snapshot(0), await snapshot(1)];
}

/** A LIST of the repository's prefix, counted by first path segment. */
async function bucketObjects(store: S3ObjectStore, repo: string): Promise<Map<string, number>> {
  const prefix = repoPrefix(parseRepoPath(repo));
  const counts = new Map<string, number>([['total', 0]]);
  for await (const item of listAll(store, prefix)) {
    const kind = item.key.slice(prefix.length).split('/')[0] as string;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    counts.set('total', (counts.get('total') ?? 0) + 1);
  }
  return counts;
}

export async function createRepo(base: string, repo: string, token: string): Promise<void> {
  const created = await fetch(`${base}/${repo}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ default_branch: BRANCH }),
  });
  if (created.status !== 201) throw new Error(`PUT /${repo} answered ${created.status}: ${await created.text()}`);
}

/**
 * A bare repository whose branch is `n` commits, each changing one small file (one of ten); answers them oldest
 * first. Deterministic: chains with another `label` (in the messages) have other commits.
 */
export async function commitChain(dir: string, n: number, label = ''): Promise<string[]> {
  await runGit(['init', '--quiet', '--bare', dir], { env: CLIENT_ENV });
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = '';
  // Without `from`, each commit continues the branch from the one before it.
  for (let i = 1; i <= n; i++) {
    stream += `commit refs/heads/${BRANCH}\ncommitter Bench <bench@example.test> ${1_700_000_000 + i} +0000\n${data(`bench push ${i}${label}`)}`;
    stream += `M 100644 inline bench/push-${i % 10}.txt\n${data(`small change ${i}`)}`;
  }
  await runGit(['-C', dir, 'fast-import', '--quiet'], { env: CLIENT_ENV, stdin: stream });
  const list = await runGit(['-C', dir, 'rev-list', '--reverse', `refs/heads/${BRANCH}`], { env: CLIENT_ENV, maxStdoutBytes: 64 << 20 });
  return list.stdout.toString().trim().split('\n');
}

const url = (base: string, repo: string) => `${base}/${repo}`;

export function maintenanceReport(figures: MaintenanceFigures): string[] {
  const { pushMs, before, after, reference, referenceBefore } = figures;
  const n = pushMs.length;
  const window = Math.min(100, n);
  const lines = [
    '',
    `${n} pushes of one small commit each to ${PUSHED}, one at a time (git push over HTTP, one instance)`,
    `  ${n} pushes in ${figures.pushSeconds.toFixed(1)} s: ${(n / figures.pushSeconds).toFixed(1)} pushes/s; per push p50 ${percentile(pushMs, 50).toFixed(0)} ms, p99 ${percentile(pushMs, 99).toFixed(0)} ms; ` +
      `first ${window} p50 ${median(pushMs.slice(0, window)).toFixed(0)} ms, last ${window} p50 ${median(pushMs.slice(-window)).toFixed(0)} ms`,
    `  the single-pack copy ${SINGLE}: the same ${n} commits pushed in one push from a fresh clone (${figures.onePushSeconds.toFixed(2)} s)`,
    '',
    `maintenance of ${PUSHED} by RepoMaintenance in this process, graceMs ${GRACE_MS} and logRetentionMs ${LOG_RETENTION_MS} (so gc may delete the retired packs and folded log entries in the same run)`,
    ...figures.units.map((u) => `  ${u.op.padEnd(11)}${u.seconds.toFixed(2).padStart(7)} s  ${String(u.requests.get('total') ?? 0).padStart(5)} bucket requests  ${u.summary}`),
    '',
    `${PUSHED}, before and after maintenance, and ${SINGLE}`.padEnd(76) +
      `${'before'.padStart(9)}${'after'.padStart(9)}${'single'.padStart(9)}${'after/single'.padStart(14)}  target ≤ ${MAINTENANCE_TARGET_RATIO} ×`,
  ];
  // Clones: the median of each round's after/single ratio (the two cloned from the same instance in the same
  // round, the order alternating), as bench/README.md describes for the other sections; the rest: one value each.
  const perRound = (values: (s: Snapshot) => number[]) => median(values(after).map((v, round) => v / (values(reference)[round] ?? Number.NaN)));
  const series = (values: (s: Snapshot) => number[]) => ({ value: (s: Snapshot) => median(values(s)), ratio: perRound(values) });
  const single = (value: (s: Snapshot) => number) => ({ value, ratio: value(after) / value(reference) });
  // The issue's target is on clone time and bucket requests per fetch; the object count is reported (the single
  // copy has no checkpoint, status or lease object, so 1.1 × of its 4 objects is not a meaningful bar).
  const rows: [string, { value: (s: Snapshot) => number; ratio: number; reported?: true }][] = [
    [`cold clone ms, median of ${COLD_ROUNDS} (a fresh instance each, empty cache)`, series((s) => s.coldMs)],
    [`warm clone ms, median of ${WARM_ROUNDS} (the last of those instances)`, series((s) => s.warmMs)],
    ['bucket requests per cold clone, median', series((s) => s.coldRequests)],
    ['bucket requests per warm clone, median', series((s) => s.warmRequests)],
    ['live packs', single((s) => s.livePacks)],
    ['live pack KiB', single((s) => s.packBytes / 1024)],
    ['bucket objects under the repository prefix', { ...single((s) => s.objects.get('total') ?? 0), reported: true }],
  ];
  const missed: string[] = [];
  for (const [label, { value, ratio, reported }] of rows) {
    const met = ratio <= MAINTENANCE_TARGET_RATIO;
    if (!met && !reported) missed.push(label.split(',')[0] as string);
    lines.push(
      `  ${label.padEnd(74)}${value(before).toFixed(0).padStart(9)}${value(after).toFixed(0).padStart(9)}${value(reference).toFixed(0).padStart(9)}${ratio.toFixed(2).padStart(14)}  ${reported ? 'reported' : met ? 'met' : 'not met'}`,
    );
  }
  const targeted = rows.filter(([, row]) => !row.reported).length;
  const kinds = (s: Snapshot) =>
    [...s.objects]
      .filter(([kind]) => kind !== 'total')
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ');
  const rounds = (values: (s: Snapshot) => number[]) => values(after).map((v, round) => (v / (values(reference)[round] ?? Number.NaN)).toFixed(2));
  lines.push(
    `  after/single of the clones: the median of the rounds' ratios; cold, round by round: ${rounds((s) => s.coldMs).join(' ')}; warm: ${rounds((s) => s.warmMs).join(' ')}`,
    `  bucket objects: before ${kinds(before)}; after ${kinds(after)}; single ${kinds(reference)}`,
    `  (${SINGLE} measured interleaved with the before figures too: cold ${median(referenceBefore.coldMs).toFixed(0)} ms, warm ${median(referenceBefore.warmMs).toFixed(0)} ms; ${median(referenceBefore.coldRequests)} bucket requests per cold clone)`,
    `  every clone had exactly ${BRANCH} at ${figures.tip.slice(0, 12)}; git fsck of each first-round clone clean; git ls-remote of both after maintenance equal`,
    `  ${missed.length === 0 ? 'PASS' : 'MISS'} after maintenance within ${MAINTENANCE_TARGET_RATIO} × of the single-pack copy: ${targeted - missed.length} of ${targeted} figures${missed.length ? ` (not: ${missed.join('; ')})` : ''}`,
  );
  return lines;
}
