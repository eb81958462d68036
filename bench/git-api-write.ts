// The JSON API's commit route in `make bench-git`: `POST /api/commits` of one small file on one branch, through
// two cw-git instances on one bucket in turn, one at a time with `expected_head_oid` (each commit syncs the
// instance's copy past the other's last commit, as real clients spread over instances would); against a local
// `git commit` + `git push` of the same change to the same instances, in the same run. Also counts the
// object-store requests per API commit from both instances' `service_store_requests_total`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../src/git/run-git.ts';
import { COMPACT_EVERY } from '../src/repo-store/pending.ts';
import { CLIENT_ENV, formatRequests, percentile, requestsPer, storeRequests } from './git-measure.ts';

/** The push budget: freshness GET, pack ∥ index PUT, log PUT, manifest CAS (bench/README.md). */
export const REQUESTS_PER_COMMIT_TARGET = 5;

export interface ApiWriteSetup {
  /** The instances' base URLs (`http://127.0.0.1:port`), used in turn. */
  readonly bases: readonly string[];
  /** `owner/name`. */
  readonly repo: string;
  readonly token: string;
  readonly branch: string;
  readonly commits: number;
  /** An empty directory for the git client's clone. */
  readonly workDir: string;
  readonly say: (message: string) => void;
}

export interface ApiWriteFigures {
  readonly apiMs: number[];
  readonly apiSeconds: number;
  readonly gitMs: number[];
  readonly gitSeconds: number;
  /** Per API commit, the commits going through the two instances in turn (each syncs the other's pack first). */
  readonly requests: Map<string, number>;
  /** Per API commit, through one instance: the condition the push budget is measured in. */
  readonly oneInstanceRequests: Map<string, number>;
}

const IDENT = { name: 'Bench', email: 'bench@example.test' };
const GIT_ENV = { ...CLIENT_ENV, GIT_AUTHOR_NAME: IDENT.name, GIT_AUTHOR_EMAIL: IDENT.email, GIT_COMMITTER_NAME: IDENT.name, GIT_COMMITTER_EMAIL: IDENT.email };

export async function measureApiWrites(setup: ApiWriteSetup): Promise<ApiWriteFigures> {
  const { bases, repo, token, branch, commits } = setup;
  const auth = { authorization: `Bearer ${token}` };
  const change = (i: number, kind: string) => ({ path: `bench/${kind}-${i % 10}.txt`, text: `${kind} change ${i}\n` });

  const post = async (base: string, head: string, i: number): Promise<string> => {
    const { path, text } = change(i, 'api');
    const response = await fetch(`${base}/${repo}/api/commits`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        branch,
        message: `bench api commit ${i}`,
        committer: IDENT,
        expected_head_oid: head,
        changes: [{ op: 'upsert', path, content: Buffer.from(text).toString('base64'), mode: '100644' }],
      }),
    });
    const body = (await response.json()) as { oid?: string };
    if (response.status !== 201 || body.oid === undefined) throw new Error(`POST /api/commits through ${base} answered ${response.status}: ${JSON.stringify(body)}`);
    return body.oid;
  };

  const summary = await fetch(`${bases[0]}/${repo}/api/refs/branches?prefix=${encodeURIComponent(branch)}`, { headers: auth });
  let head = ((await summary.json()) as { refs: { name: string; sha: string }[] }).refs.find((r) => r.name === branch)?.sha;
  if (head === undefined) throw new Error(`branch ${branch} not found in ${repo}`);
  // One unmeasured commit through each instance: both copies synced, the route's code paths warm.
  for (const [i, base] of bases.entries()) head = await post(base, head, -1 - i);

  const sumRequests = async () => {
    const total = new Map<string, number>();
    for (const base of bases) for (const [key, value] of await storeRequests(base, token)) total.set(key, (total.get(key) ?? 0) + value);
    return total;
  };
  const before = await sumRequests();
  const apiMs: number[] = [];
  const apiStart = performance.now();
  for (let i = 0; i < commits; i++) {
    const t0 = performance.now();
    head = await post(bases[i % bases.length]!, head, i);
    apiMs.push(performance.now() - t0);
  }
  const apiSeconds = (performance.now() - apiStart) / 1000;
  const requests = requestsPer(before, await sumRequests(), commits);
  // The same commits through one instance, as the push budget is measured: no pack of another instance to sync
  // (one unmeasured commit first brings its copy past the other instance's last commit).
  head = await post(bases[0]!, head, 2 * commits);
  const beforeOne = await sumRequests();
  for (let i = 0; i < commits; i++) head = await post(bases[0]!, head, 2 * commits + 1 + i);
  const oneInstanceRequests = requestsPer(beforeOne, await sumRequests(), commits);

  // The same change by the stock client: a sparse clone (the index holds the whole tree, the work tree only
  // what is written), then `git commit` + `git push` of each change, timed together.
  const dir = setup.workDir;
  const url = (base: string) => `${base}/${repo}`;
  const header = ['-c', `http.extraHeader=Authorization: Bearer ${token}`];
  const git = (args: string[]) => runGit([...header, '-C', dir, ...args], { env: GIT_ENV, maxStdoutBytes: 1 << 20 });
  setup.say(`cloning ${repo} (sparse) for the git commit + push comparison`);
  await runGit([...header, 'clone', '--quiet', '--sparse', '--branch', branch, url(bases[0]!), dir], { env: GIT_ENV, maxStdoutBytes: 1 << 20 });
  await git(['sparse-checkout', 'add', 'bench']);
  const gitMs: number[] = [];
  const gitStart = performance.now();
  for (let i = 0; i < commits; i++) {
    const { path, text } = change(i, 'git');
    const t0 = performance.now();
    writeFileSync(join(dir, path), text);
    await git(['add', path]);
    await git(['commit', '--quiet', '-m', `bench git commit ${i}`]);
    await git(['push', '--quiet', url(bases[i % bases.length]!), `HEAD:refs/heads/${branch}`]);
    gitMs.push(performance.now() - t0);
  }
  const gitSeconds = (performance.now() - gitStart) / 1000;
  return { apiMs, apiSeconds, gitMs, gitSeconds, requests, oneInstanceRequests };
}

export function apiWriteReport(setup: ApiWriteSetup, figures: ApiWriteFigures): string[] {
  const n = setup.commits;
  const row = (label: string, ms: number[], seconds: number) =>
    `  ${label.padEnd(66)}${percentile(ms, 50).toFixed(0).padStart(6)}${percentile(ms, 99).toFixed(0).padStart(8)}${Math.max(...ms)
      .toFixed(0)
      .padStart(8)}${(n / seconds).toFixed(1).padStart(10)}`;
  // As for pushes: every COMPACT_EVERY-th pack a publish also PUTs the maintenance marker, amortized, not per write.
  const markerShare = Math.ceil(n / COMPACT_EVERY) / n;
  const perCommit = (figures.oneInstanceRequests.get('total') ?? 0) - markerShare;
  return [
    '',
    `one small file committed on ${setup.branch}, ${n} sequential, ${setup.bases.length} instances in turn     p50 ms  p99 ms  max ms  commits/s`,
    row('cw-git  POST /api/commits (expected_head_oid)', figures.apiMs, figures.apiSeconds),
    row('git commit + git push (sparse clone, fast-forward)', figures.gitMs, figures.gitSeconds),
    `  (API p50 / git p50: ${(percentile(figures.apiMs, 50) / percentile(figures.gitMs, 50)).toFixed(2)}; each commit goes through the other instance than the one before)`,
    `object-store requests per API commit, through one instance: ${formatRequests(figures.oneInstanceRequests)}`,
    `object-store requests per API commit, two instances in turn (each first syncs the other's pack): ${formatRequests(figures.requests)}`,
    `  ${perCommit <= REQUESTS_PER_COMMIT_TARGET ? 'PASS' : 'MISS'} object-store requests per API commit through one instance ≤ ${REQUESTS_PER_COMMIT_TARGET} (the push budget, measured the same way): ${perCommit.toFixed(2)} without the maintenance marker (≤ ${markerShare.toFixed(2)}, one PUT per ${COMPACT_EVERY} packs)`,
  ];
}
