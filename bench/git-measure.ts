// Measuring helpers of the git benchmark: timing git commands, describing a repository, reading cw-git's
// store request counter, and the statistics printed.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../src/git/run-git.ts';

/** Client git without the machine's or user's configuration, so both servers see the same client. */
export const CLIENT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };

/** Runs a git command to completion; answers its wall-clock seconds (process start to exit). */
export async function timeGit(args: string[]): Promise<number> {
  const t0 = performance.now();
  await runGit(args, { env: CLIENT_ENV, maxStdoutBytes: 1 << 20 });
  return (performance.now() - t0) / 1000;
}

/** `[refname, oid]` of every ref of `dir`, in git's order. */
export async function refsOf(dir: string): Promise<[string, string][]> {
  const out = (await runGit(['-C', dir, 'for-each-ref', '--format=%(refname) %(objectname)'], { env: CLIENT_ENV, maxStdoutBytes: 64 << 20 })).stdout.toString().trim();
  return out === '' ? [] : out.split('\n').map((line) => line.split(' ') as [string, string]);
}

export interface RepoFacts {
  readonly gitVersion: string;
  readonly commits: number;
  readonly objects: number;
  readonly packBytes: number;
  readonly bitmaps: boolean;
  readonly refs: [string, string][];
  /** The branch HEAD names, and its commit. */
  readonly headBranch: string;
  readonly head: string;
}

export async function describeRepo(dir: string): Promise<RepoFacts> {
  const git = async (...args: string[]) => (await runGit(['-C', dir, ...args], { env: CLIENT_ENV })).stdout.toString().trim();
  const counts = Object.fromEntries((await git('count-objects', '-v')).split('\n').map((line) => line.split(': ') as [string, string]));
  return {
    gitVersion: (await git('version')).replace(/^git version /, ''),
    commits: Number(await git('rev-list', '--count', '--all')),
    objects: Number(counts['in-pack'] ?? 0) + Number(counts.count ?? 0),
    packBytes: Number(counts['size-pack'] ?? 0) * 1024,
    bitmaps: readdirSync(join(dir, 'objects', 'pack')).some((f) => f.endsWith('.bitmap')),
    refs: await refsOf(dir),
    headBranch: await git('symbolic-ref', '--short', 'HEAD'),
    head: await git('rev-parse', 'HEAD'),
  };
}

/** `service_store_requests_total` from cw-git's `/metrics`, by `op:outcome` (and `total`). */
export async function storeRequests(base: string, token: string): Promise<Map<string, number>> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return parseStoreRequests(text);
}

/** `service_store_requests_total` from a Prometheus text exposition (a `/metrics` body, `Registry.metrics()`). */
export function parseStoreRequests(text: string): Map<string, number> {
  const counts = new Map<string, number>([['total', 0]]);
  for (const line of text.split('\n')) {
    const match = /^service_store_requests_total\{(.*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const key = `${labels.op}:${labels.outcome}`;
    const value = Number(match[2]);
    counts.set(key, (counts.get(key) ?? 0) + value);
    counts.set('total', (counts.get('total') ?? 0) + value);
  }
  return counts;
}

/** `after - before` per key, divided by `n`: requests per operation, `total` first. */
export function requestsPer(before: Map<string, number>, after: Map<string, number>, n: number): Map<string, number> {
  const per = new Map<string, number>();
  for (const [key, value] of after) {
    const delta = (value - (before.get(key) ?? 0)) / n;
    if (delta > 0 || key === 'total') per.set(key, delta);
  }
  return per;
}

/** `9.70 (get:ok 3.00, put:ok 5.70, ...)` */
export function formatRequests(per: Map<string, number>): string {
  const parts = [...per].filter(([key]) => key !== 'total').map(([key, value]) => `${key} ${value.toFixed(2)}`);
  return `${(per.get('total') ?? 0).toFixed(2)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The nearest-rank percentile (p99 of fewer than 100 samples is their maximum). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
