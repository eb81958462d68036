// How `make bench-scale-databases` prints what it measured: times, memory of a cw-db and its shards, placement.
import type { CwDbProcess } from '../e2e/harness/cw-db-process.ts';
import { residentBytes, treeResidentBytes } from '../e2e/harness/process-memory.ts';
import { percentile } from './runtime-kit.ts';

export const say = (line: string) => process.stdout.write(`${line}\n`);
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0)} MiB`;
export const percentiles = (ms: readonly number[]) => `p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`;

/** The resident memory of a cw-db and its shard processes (`tree`), and of the cw-db process alone (`main`). */
export interface CwDbMemory {
  tree: number;
  main: number;
}

export function rss(db: CwDbProcess): CwDbMemory {
  const pid = db.service?.child.pid ?? 0;
  return { tree: treeResidentBytes(pid), main: residentBytes(pid) };
}

export const rssText = (m: CwDbMemory | undefined) => (m ? `${mib(m.tree)} (cw-db ${mib(m.main)}, shards ${mib(m.tree - m.main)})` : 'gone');

/** Databases per replica, and how uneven: the fullest over the mean. */
export function placement(holders: Map<string, string | null | undefined>, replicas: readonly string[]): string {
  const counts = new Map(replicas.map((name) => [name, 0]));
  let elsewhere = 0;
  for (const holder of holders.values()) {
    if (holder && counts.has(holder)) counts.set(holder, (counts.get(holder) ?? 0) + 1);
    else elsewhere++;
  }
  const values = [...counts.values()];
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return `${[...counts].map(([name, n]) => `${name} ${n}`).join(', ')}${elsewhere > 0 ? `, ${elsewhere} with no live holder` : ''}; max/mean ${(Math.max(...values) / mean).toFixed(2)}`;
}
