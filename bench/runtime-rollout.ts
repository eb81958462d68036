// The per-request cost of a rollout's split for bench/runtime.ts: the hello worker served by one app in a
// rollout at weight 50 (two builds, header affinity, every request with a key of its own)
// against the same worker served by an app without one, on the same shard, loaded alternately; throughput
// and CPU per request of cw-runtime and the shard's workerd from /proc.
import type { RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf } from '../src/runtime-contract/releases.ts';
import { shardOf } from '../runtime-server/engine/shard-of.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { firstServed, shardPids, upload, type Kit } from './runtime-kit.ts';
import { load, type Measured, type ThroughputOptions } from './runtime-throughput.ts';

export interface RolloutCost {
  readonly plain: Measured[];
  readonly split: Measured[];
  /** The split app's counts per release, as the replica reports them at the end. */
  readonly counts?: { readonly stable: { readonly requests: number }; readonly canary: { readonly requests: number } };
}

export type RolloutCostOptions = Pick<ThroughputOptions, 'kit' | 'port' | 'runtimePid' | 'node' | 'connections' | 'warmupSeconds' | 'durationSeconds' | 'rounds' | 'baseDomain' | 'say'> & {
  readonly helloSource: string;
  /** Answers `GET /apps/{namespace}/{app}` of the replica's status server (the report). */
  readonly report: (namespace: string, app: string) => Promise<{ rollout?: { weight: number; stable: { requests: number }; canary: { requests: number } } } | undefined>;
};

const AFFINITY_HEADER = 'x-user';

export async function measureRolloutCost(o: RolloutCostOptions): Promise<RolloutCost> {
  const { kit } = o;
  const spec = (buildId: string): RuntimeApp['spec'] => ({ displayName: 'rollout bench', activeBuildId: buildId, environment: { GREETING: 'Hello' } });
  const v1 = artifactFromFiles({ 'worker.js': o.helloSource });
  const v2 = artifactFromFiles({ 'worker.js': `${o.helloSource}\n// v2\n` });

  const plainOwner = await kit.apps.create({ metadata: { name: 'plain', namespace: kit.namespace }, spec: { displayName: 'no rollout' } });
  await kit.apps.patch(kit.namespace, 'plain', { spec: spec(await upload(kit, 'plain', plainOwner, v1)) });

  // The split, as the operator would record it: v1 stable, v2 (the spec) at 50 %.
  const owner = await kit.apps.create({ metadata: { name: 'split', namespace: kit.namespace }, spec: { displayName: 'rollout bench' } });
  const stableId = await upload(kit, 'split', owner, v1);
  const canaryId = await upload(kit, 'split', owner, v2);
  await kit.apps.patch(kit.namespace, 'split', { spec: { ...spec(stableId) } });
  const rolling = await kit.apps.patch(kit.namespace, 'split', { spec: { ...spec(canaryId), rollout: { steps: [{ weight: 50 }], affinity: { header: AFFINITY_HEADER } } } });
  const status: RolloutStatus = { phase: 'Paused', stable: releaseOf(spec(stableId))!, canary: releaseOf(rolling.spec)!, step: 0, weight: 50 };
  await kit.apps.patchStatus(kit.namespace, 'split', { status: { rollout: status } });

  const hosts = { plain: `plain.${kit.namespace}.${o.baseDomain}`, split: `split.${kit.namespace}.${o.baseDomain}` };
  await firstServed(o.port, hosts.plain, 'Hello, world!');
  await firstServed(o.port, hosts.split, 'Hello, world!');
  await splitServed(o, kit);
  const shard = shardPids(o.runtimePid)[shardOf(kit.namespace, shardPids(o.runtimePid).length)];
  if (shard === undefined) throw new Error('no workerd serves the bench project');
  const groups = { router: [o.runtimePid], workerd: [shard] };
  const plain: Measured[] = [];
  const split: Measured[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const keys = { header: AFFINITY_HEADER };
    plain.push(await load(o, `hello without a rollout (round ${round})`, [{ url: `http://127.0.0.1:${o.port}/`, host: hosts.plain, keys }], groups));
    split.push(await load(o, `hello in a rollout at 50 % (round ${round})`, [{ url: `http://127.0.0.1:${o.port}/`, host: hosts.split, keys }], groups));
  }
  const counts = (await o.report(kit.namespace, 'split'))?.rollout;
  return { plain, split, ...(counts ? { counts } : {}) };
}

/** Waits until the replica reports the split applied (its report carries the rollout). */
async function splitServed(o: RolloutCostOptions, kit: Kit, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if ((await o.report(kit.namespace, 'split'))?.rollout?.weight === 50) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the replica did not apply the split within ${timeoutMs} ms`);
}

/** The section's lines: throughput of each side, their ratio, and CPU per request of the router and workerd. */
export function rolloutReport(cost: RolloutCost): string[] {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const rps = (runs: Measured[]) => median(runs.map((r) => r.requestsPerSecond));
  const cpu = (runs: Measured[], group: string) => median(runs.map((r) => r.cpuMicros[group] ?? NaN));
  const line = (name: string, runs: Measured[]) =>
    `  ${name.padEnd(22)} ${rps(runs).toFixed(0).padStart(7)} req/s   p50 ${median(runs.map((r) => r.p50Ms)).toFixed(1)} ms   CPU/request: cw-runtime ${cpu(runs, 'router').toFixed(0)} µs, workerd ${cpu(runs, 'workerd').toFixed(0)} µs`;
  const addedWorkerd = cpu(cost.split, 'workerd') - cpu(cost.plain, 'workerd');
  return [
    'Rollout split (hello worker, one shard; header affinity, a key per request):',
    line('without a rollout', cost.plain),
    line('in a rollout at 50 %', cost.split),
    `  throughput ratio (split / plain): ${(rps(cost.split) / rps(cost.plain)).toFixed(3)}; workerd CPU per request added by the split: ${addedWorkerd.toFixed(1)} µs`,
    ...(cost.counts
      ? [
          `  the replica's counts: stable ${cost.counts.stable.requests}, canary ${cost.counts.canary.requests} (${((100 * cost.counts.canary.requests) / (cost.counts.stable.requests + cost.counts.canary.requests)).toFixed(1)} % on the canary)`,
        ]
      : []),
  ];
}
