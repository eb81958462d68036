// `make kube-node`: a real Kubernetes node on this machine (e2e/harness/kube-node.ts), in the foreground, with
// Cloudwright's image imported, and MinIO, moto (the S3 and Route 53 stand-ins) and an npm mirror (for builds)
// where its pods reach them: what `helm install` of charts/cloudwright needs, as the README's "On a cluster
// (Helm)" describes. Writes
// .kube-node/env (KUBECONFIG, the endpoints, the bucket credentials) and .kube-node/values.json (the chart's
// network policy settings for this node); Ctrl-C stops everything and leaves the machine as it found it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartNetworkValues } from '../e2e/harness/kube-node-config.ts';
import { reclaimHost } from '../e2e/harness/kube-node-host.ts';
import { builtImage, startKubeNode } from '../e2e/harness/kube-node.ts';
import { startMinio } from '../e2e/harness/minio.ts';
import { startMoto } from '../e2e/harness/moto.ts';
import { startNpmMirror } from '../e2e/harness/npm-mirror.ts';
import { repoRoot } from '../e2e/harness/tools.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';

const dir = join(repoRoot, '.kube-node');
const envFile = join(dir, 'env');
const BUCKETS = ['cloudwright', 'cloudwright-git', 'cloudwright-db'];
const IMAGE_USER = 10001;
const stops: (() => Promise<void>)[] = [];

function say(message: string): void {
  process.stdout.write(`kube-node: ${message}\n`);
}

async function main(): Promise<void> {
  // Before anything is removed: a second run must not take the first one's directory from under it, and a
  // killed one's mounts there go first.
  await reclaimHost();
  // A node's state does not outlive it: every start is a new cluster.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { archive, name: image } = builtImage('cloudwright-image');
  say(`starting the node (control plane, containerd, kubelet, kube-proxy, CoreDNS) and importing ${image}`);
  // Its stop is known before it starts: a Ctrl-C during the start waits for it, then stops it.
  const starting = startKubeNode({ stateDir: dir, images: [archive] });
  stops.push(async () => (await starting.catch(() => undefined))?.stop());
  const node = await starting;
  const [minio, moto, npmMirror] = await Promise.all([startMinio(dir, undefined, { host: node.address }), startMoto(dir, node.address), startNpmMirror(dir, node.address)]);
  stops.push(
    () => minio.service.stop(),
    () => moto.service.stop(),
    () => npmMirror.service.stop(),
  );
  for (const bucket of BUCKETS) await ensureBucket(minio.s3, bucket);
  // The node has no provisioner: volumes for claims to bind (cw-db's), owned by the image's user.
  for (const n of [1, 2, 3]) await node.addVolume(`cw-node-volume-${n}`, '10Gi', IMAGE_USER);
  const [repository, tag] = image.split(':');
  const env = {
    KUBECONFIG: node.kubeconfig,
    CW_IMAGE_REPOSITORY: repository,
    CW_IMAGE_TAG: tag,
    CW_S3_ENDPOINT: minio.endpoint,
    CW_S3_ACCESS_KEY_ID: minio.s3.credentials?.accessKeyId,
    CW_S3_SECRET_ACCESS_KEY: minio.s3.credentials?.secretAccessKey,
    CW_ROUTE53_ENDPOINT: moto.endpoint,
    // For an AppSource's environment (NPM_CONFIG_REGISTRY): build pods reach no other registry.
    CW_NPM_MIRROR: npmMirror.url,
  };
  writeFileSync(
    envFile,
    Object.entries(env)
      .map(([key, value]) => `export ${key}=${value ?? ''}\n`)
      .join(''),
    { mode: 0o600 },
  );
  // The runtime's pods find DNS and the bucket on the node's address, build pods the npm mirror:
  // `helm install -f .kube-node/values.json`.
  writeFileSync(join(dir, 'values.json'), JSON.stringify(chartNetworkValues(minio.endpoint, npmMirror.port), null, 2));
  say(`node cw-node Ready in ${(node.startMs / 1000).toFixed(1)} s; buckets ${BUCKETS.join(', ')} on ${minio.endpoint}; three 10Gi volumes`);
  say(`. .kube-node/env, then install the chart as the README's "On a cluster (Helm)" says. Ctrl-C stops it all.`);
}

let stopping = false;
async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping');
  for (const stop of stops.reverse()) await stop().catch((err: Error) => say(err.message));
  rmSync(envFile, { force: true });
  process.exit(code);
}

process.once('SIGINT', () => void stopAll(0));
process.once('SIGTERM', () => void stopAll(0));
main().catch((err: Error) => {
  say(err.message);
  void stopAll(1);
});
