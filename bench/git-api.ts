// The JSON API part of `make bench-git`: cw-git's read routes against the git commands they stand for, run
// directly on the very bare repository cw-git reads (its cache copy), in the same run.
//
//   1. warm tree and blob reads: `GET /api/tree/{branch}/` and `GET /api/blob/{branch}/{path}` loaded by autocannon,
//      and `git ls-tree -l` / `git cat-file blob` spawned as fast as they finish, the same number in flight,
//      interleaved in rounds by one load-generator process (load.ts);
//   2. a comparison 1,000 commits deep: `GET /api/compare/{branch}~1000...{branch}` one at a time, against
//      `git log --oneline` and `git diff --stat` of the same range run side by side, alternating with it.
import { join } from 'node:path';
import { repoRoot } from '../e2e/harness/tools.ts';
import { runGit } from '../src/git/run-git.ts';
import { runToCompletion } from './child.ts';
import { CLIENT_ENV, median, percentile, requestsPer, storeRequests } from './git-measure.ts';
import { failed, type LoadPlan, type LoadTarget, type LoadWindow } from './load-plan.ts';

export interface ApiSetup {
  /** cw-git's base URL, the repository's path on it (`owner/name`) and a token with the `read` scope. */
  readonly base: string;
  readonly repo: string;
  readonly token: string;
  /** The bare repository cw-git reads the API's answers from. */
  readonly dir: string;
  readonly branch: string;
  readonly connections: number;
  readonly rounds: number;
  readonly durationSeconds: number;
  readonly compares: number;
  /** How deep the comparison is: `{branch}~depth...{branch}`. */
  readonly depth: number;
  readonly node: string;
  readonly say: (message: string) => void;
}

export interface LoadRow {
  readonly label: string;
  readonly windows: LoadWindow[];
  /** The row it is compared with; none for a reference row. */
  readonly reference?: LoadRow;
}

export interface ApiFigures {
  readonly blob: { path: string; size: number };
  readonly treeEntries: number;
  readonly rows: LoadRow[];
  readonly compare: { apiMs: number[]; gitMs: number[]; aheadBy: number; files: number; patchBytes: number; truncated: boolean; gitLabel: string; apiLabel: string };
  /** Object-store requests per API request (the compare requests, all warm). */
  readonly storePerRead: Map<string, number>;
}

/** A typical file of the branch: the regular file of median size (ties by path), so the blob read is neither tiny nor large. */
async function pickBlob(dir: string, branch: string): Promise<{ path: string; size: number }> {
  const { stdout } = await runGit(['-C', dir, 'ls-tree', '-r', '-l', '-z', branch], { env: CLIENT_ENV, maxStdoutBytes: 64 << 20 });
  const files = stdout
    .toString()
    .split('\0')
    .filter((record) => record.startsWith('100644 blob '))
    .map((record) => {
      const [meta = '', path = ''] = record.split('\t');
      return { path, size: Number(meta.trim().split(/\s+/)[3]) };
    })
    .sort((a, b) => a.size - b.size || (a.path < b.path ? -1 : 1));
  const file = files[Math.floor(files.length / 2)];
  if (!file) throw new Error(`${branch} has no regular file`);
  return file;
}

async function getJson(url: string, token: string): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const ms = performance.now() - t0;
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text, ms };
}

/** One GET of each loaded route, checked against git (and syncing cw-git's copy, so the load starts warm). */
async function checkAnswers(setup: ApiSetup, api: string, blobPath: string): Promise<number> {
  const git = async (...args: string[]) => (await runGit(['-C', setup.dir, ...args], { env: CLIENT_ENV })).stdout;
  const tree = await getJson(`${api}/tree/${setup.branch}/`, setup.token);
  const entries = (tree.body as { entries?: unknown[] }).entries?.length;
  const expected = (await git('ls-tree', setup.branch)).toString().trim().split('\n').length;
  if (tree.status !== 200 || entries !== expected) throw new Error(`GET /api/tree answered ${tree.status} with ${entries} entries, git lists ${expected}`);
  const blob = await getJson(`${api}/blob/${setup.branch}/${blobPath}`, setup.token);
  const contents = (blob.body as { contents?: string }).contents;
  const bytes = await git('cat-file', 'blob', `${setup.branch}:${blobPath}`);
  if (blob.status !== 200 || contents !== bytes.toString()) throw new Error(`GET /api/blob answered ${blob.status}, contents ${contents === undefined ? 'missing' : 'other than git’s'}`);
  return entries;
}

async function measureLoad(setup: ApiSetup, api: string, blobPath: string): Promise<LoadRow[]> {
  const git = (...args: string[]): LoadTarget => ({ command: 'git', args: ['-C', setup.dir, ...args], env: CLIENT_ENV });
  const targets: [string, LoadTarget][] = [
    [`cw-git  GET /api/tree/${setup.branch}/`, { url: `${api}/tree/${setup.branch}/`, token: setup.token }],
    [`git ls-tree -l ${setup.branch}`, git('ls-tree', '-l', setup.branch)],
    [`cw-git  GET /api/blob/${setup.branch}/${blobPath}`, { url: `${api}/blob/${setup.branch}/${blobPath}`, token: setup.token }],
    [`git cat-file blob ${setup.branch}:${blobPath}`, git('cat-file', 'blob', `${setup.branch}:${blobPath}`)],
  ];
  const plan: LoadPlan = {
    targets: targets.map(([, target]) => target),
    connections: setup.connections,
    rounds: setup.rounds,
    firstWarmupSeconds: 2,
    warmupSeconds: 1,
    durationSeconds: setup.durationSeconds,
  };
  setup.say(`API reads: ${targets.length} targets × ${setup.rounds} rounds of ${setup.durationSeconds} s, ${setup.connections} in flight (2 s warm-up per target in the first round, then 1 s)`);
  const output = await runToCompletion(setup.node, [join(repoRoot, 'bench/load.ts'), JSON.stringify(plan)]);
  const windows = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LoadWindow)
    .sort((a, b) => a.round - b.round);
  const rows: LoadRow[] = targets.map(([label], i) => {
    const mine = windows.filter((w) => w.target === i);
    const bad = mine.find(failed);
    if (bad) throw new Error(`${label}: ${bad.errors} errors, ${bad.timeouts} timeouts, status codes ${JSON.stringify(bad.statusCodes)}`);
    return { label, windows: mine };
  });
  // Each API row is followed by its git reference.
  return rows.map((row, i) => (i % 2 === 0 && rows[i + 1] ? { ...row, reference: rows[i + 1] as LoadRow } : row));
}

async function measureCompare(setup: ApiSetup, api: string): Promise<ApiFigures['compare'] & { storePerRead: Map<string, number> }> {
  const base = `${setup.branch}~${setup.depth}`;
  const url = `${api}/compare/${base}...${setup.branch}`;
  const gitArgs = [
    ['log', '--oneline', `${base}..${setup.branch}`],
    ['diff', '--stat', `${base}...${setup.branch}`],
  ];
  const api1 = async () => {
    const answer = await getJson(url, setup.token);
    if (answer.status !== 200) throw new Error(`GET /api/compare answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer;
  };
  const git1 = async () => {
    const t0 = performance.now();
    await Promise.all(gitArgs.map((args) => runGit(['-C', setup.dir, ...args], { env: CLIENT_ENV, maxStdoutBytes: 64 << 20 })));
    return performance.now() - t0;
  };
  const first = (await api1()).body as { ahead_by: number; files: unknown[]; patch: string; truncated: boolean };
  await git1();
  setup.say(`compare ${base}...${setup.branch}: ${setup.compares} requests and git runs, alternating, after one warm-up each`);
  const apiMs: number[] = [];
  const gitMs: number[] = [];
  const before = await storeRequests(setup.base, setup.token);
  for (let i = 0; i < setup.compares; i++) {
    if (i % 2 === 0) {
      apiMs.push((await api1()).ms);
      gitMs.push(await git1());
    } else {
      gitMs.push(await git1());
      apiMs.push((await api1()).ms);
    }
  }
  const storePerRead = requestsPer(before, await storeRequests(setup.base, setup.token), setup.compares);
  return {
    apiMs,
    gitMs,
    aheadBy: first.ahead_by,
    files: first.files.length,
    patchBytes: Buffer.byteLength(first.patch),
    truncated: first.truncated,
    apiLabel: `cw-git  GET /api/compare/${base}...${setup.branch}`,
    gitLabel: `git log --oneline ${base}..${setup.branch} ∥ git diff --stat ${base}...${setup.branch}`,
    storePerRead,
  };
}

export async function measureApi(setup: ApiSetup): Promise<ApiFigures> {
  const api = `${setup.base}/${setup.repo}/api`;
  const blob = await pickBlob(setup.dir, setup.branch);
  const treeEntries = await checkAnswers(setup, api, blob.path);
  const rows = await measureLoad(setup, api, blob.path);
  const { storePerRead, ...compare } = await measureCompare(setup, api);
  return { blob, treeEntries, rows, compare, storePerRead };
}

/** ours / reference, round by round (the windows of one round sit closest in time), median. */
function roundRatio(row: LoadRow, reference: LoadRow): number {
  const ratios = row.windows.map((w) => w.requestsPerSecond / (reference.windows.find((r) => r.round === w.round)?.requestsPerSecond ?? Number.NaN));
  return median(ratios);
}

export function apiReport(setup: ApiSetup, figures: ApiFigures): string[] {
  const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1)).padStart(8);
  const lines = [
    '',
    `JSON API reads and git on the same bare repository, ${setup.connections} in flight, ${setup.rounds} × ${setup.durationSeconds} s interleaved   req/s  p50 ms  p99 ms  × git   req/s, slowest–fastest round`,
  ];
  for (const row of figures.rows) {
    const rps = median(row.windows.map((w) => w.requestsPerSecond));
    const spread = `${Math.min(...row.windows.map((w) => w.requestsPerSecond)).toFixed(0)}–${Math.max(...row.windows.map((w) => w.requestsPerSecond)).toFixed(0)}`;
    const ratio = row.reference ? roundRatio(row, row.reference).toFixed(2) : '1.00';
    lines.push(`  ${row.label.padEnd(88)}${rps.toFixed(0).padStart(6)}${ms(median(row.windows.map((w) => w.p50Ms)))}${ms(median(row.windows.map((w) => w.p99Ms)))}${ratio.padStart(7)}   ${spread}`);
  }
  lines.push(`  (tree: the root, ${figures.treeEntries} entries; blob: the file of median size, ${figures.blob.size} bytes; × git: req/s over git's process runs/s, per round, median)`);
  const c = figures.compare;
  const apiP50 = median(c.apiMs);
  const gitP50 = median(c.gitMs);
  lines.push(
    '',
    `compare ${setup.depth} commits apart, ${setup.compares} sequential each, alternating, after one warm-up        p50 ms  p99 ms     min     max  × git`,
    `  ${c.apiLabel.padEnd(88)}${ms(apiP50)}${ms(percentile(c.apiMs, 99))}${ms(Math.min(...c.apiMs))}${ms(Math.max(...c.apiMs))}${(apiP50 / gitP50).toFixed(2).padStart(7)}`,
    `  ${c.gitLabel.padEnd(88)}${ms(gitP50)}${ms(percentile(c.gitMs, 99))}${ms(Math.min(...c.gitMs))}${ms(Math.max(...c.gitMs))}${'1.00'.padStart(7)}`,
    `  (the answer: ahead_by ${c.aheadBy}, ${c.files} files, patch ${(c.patchBytes / 2 ** 20).toFixed(2)} MiB${c.truncated ? ', truncated' : ''}; × git: time over git's, p50; the two git commands run side by side)`,
    `object-store requests per warm API read (the compare requests): ${[...figures.storePerRead].map(([key, value]) => `${key} ${value.toFixed(2)}`).join(', ')}`,
  );
  return lines;
}
