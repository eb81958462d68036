// What bench/runtime.ts and bench/runtime-throughput.ts share: driving apps through custom resources and the
// bucket (as a GitOps user or the API's deploy route does), reading the entry point, and CPU from /proc.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { ObjectClient } from '../src/kube/index.ts';
import type { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor, buildResourceName } from '../src/platform/artifact-keys.ts';

export interface Kit {
  namespace: string;
  apps: ObjectClient<RuntimeApp>;
  builds: ObjectClient<Build>;
  bucket: S3ObjectStore;
}

/** Kept-alive connections for `get` (one at a time); destroyed when the bench stops. */
export const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** GET through the entry point with `Host`, on one kept-alive connection (or a connection of its own with `via` false). */
export function get(port: number, host: string, via: Agent | false = agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: via }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until the entry point answers 200 starting with `prefix`; resolves with the time of that answer. */
export async function firstServed(port: number, host: string, prefix: string, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const res = await get(port, host).catch(() => undefined);
    if (res?.status === 200 && res.body.startsWith(prefix)) return performance.now();
    await sleep(2);
  }
  throw new Error(`${host} did not serve ${prefix} within ${timeoutMs} ms`);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** Stores the artifact and records its Build (in `namespace`, default the kit's), as the API's deploy route does; answers the build id. */
export async function upload(kit: Kit, app: string, owner: RuntimeApp, artifact: Uint8Array, namespace = kit.namespace): Promise<string> {
  const digest = createHash('sha256').update(artifact).digest('hex');
  const buildId = buildIdFor(digest);
  const key = artifactKey(namespace, app, buildId);
  await kit.bucket.put(key, artifact);
  await kit.builds.create({
    metadata: {
      name: buildResourceName(app, buildId),
      namespace,
      ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name: app, uid: owner.metadata?.uid ?? '', controller: true }],
    },
    spec: { app, buildId, digest, size: artifact.length, objectKey: key },
  });
  return buildId;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) `pid` has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds of this process's children that have exited and been reaped (the load runs). */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** The children of `pid` (workerd, for cw-runtime). */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The workerd processes serving cw-runtime `pid`'s shards (their configs live in `run/s<shard>g<n>/`), by shard. */
export function shardPids(pid: number): number[] {
  const shards: number[] = [];
  for (const child of childrenOf(pid)) {
    const match = /\/run\/s(\d+)g\d+\/config\.capnp/.exec(readFileSync(`/proc/${child}/cmdline`, 'utf8'));
    if (match) shards[Number(match[1])] = child;
  }
  return shards;
}
