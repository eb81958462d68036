// Uploads and builds as a hostile tenant sends them, against a real cw-api, cw-runtime (with its workerd) and
// operator: decompression bombs (8 KB that unpack to 250 MiB), every upload slot busy with them, builds past
// the project quota and past the runtime's disk, and more log streams than a user may follow. Memory is read
// from /proc for the real processes while they work: what a pod's memory limit is measured against.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { listAll } from '../src/object-store/list-all.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { appArtifactPrefix, artifactKey, buildIdFor, buildResourceName } from '../src/platform/artifact-keys.ts';
import { BUILDS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createOwnedProject, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { MemorySampler, residentBytes, treeResidentBytes } from './harness/process-memory.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const MIB = 1024 * 1024;
/** The project quota cw-api and cw-runtime run with here: their default. */
const QUOTA = 256 * MIB;
/** What the API may grow by with every upload slot busy with a bomb, and the runtime (with workerd) while it unpacks one. */
const API_BOUND = 128 * MIB;
const RUNTIME_BOUND = 160 * MIB;

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const builds = objectClient<Build>(conn, BUILDS);
const running: Service[] = [];
let api: ApiServer;
let runtime: Runtime;
let member: MemberAccount;
/** A second project of the same member, where the runtime has no room left. */
let second = '';
const figures: Record<string, string> = {};

afterAll(async () => {
  process.stdout.write(`upload-bounds: ${JSON.stringify(figures)}\n`);
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
});

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'bounds');
  second = await createOwnedProject(kubeconfig, member.user, 'bounds2');
  await Promise.all([createProjectNamespace(kubeconfig, member.project), createProjectNamespace(kubeconfig, second)]);
  [runtime, api] = await Promise.all([
    // 300 MiB of data directory: builds get 90 % of it, 283 MB, so one bomb (262 MB) fits and little else. The
    // cache of prepared builds may take the largest build, 256 MiB (by default 75 %, less than the bomb: every
    // other app's first request would let the bomb go, and the bounds below are about builds the replica keeps).
    startRuntime('cw-runtime-bounds', member.project, running, { CW_RUNTIME_DATA_DIR_SIZE: '300Mi', CW_RUNTIME_BUILD_CACHE_SIZE: '256Mi' }),
    startApiServer({
      kubeconfig,
      stateDir: inject('stateDir'),
      env: { ...s3Env(), CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project, CW_API_UPLOADS_PER_USER: '8', CW_API_LOG_STREAMS_PER_USER: '2' },
    }),
  ]);
  // One operator per project, both counting the replica that reports in the first project's namespace (the
  // second one without leader election: it would wait for the first one's Lease there).
  await Promise.all([startOperator(member.project, running), startOperator(second, running, { POD_NAMESPACE: member.project, CW_LEADER_ELECTION: 'false' })]);
}, 180_000);

/**
 * An artifact of `files` files of 25 MiB of zeros under assets/ (and a worker answering `name`, unless
 * `entry` is false), packed by `tar` and `zstd` as a user would: about 8 KB that unpacks to 250 MiB.
 */
function bomb(name: string, options: { files?: number; fileMiB?: number; entry?: boolean } = {}): Buffer {
  const dir = mkdtempSync(join(inject('stateDir'), 'bomb-'));
  try {
    mkdirSync(join(dir, 'assets'));
    if (options.entry !== false) writeFileSync(join(dir, 'worker.js'), `export default { fetch: () => new Response(${JSON.stringify(name)}) };\n`);
    for (let i = 0; i < (options.files ?? 10); i++) {
      writeFileSync(join(dir, 'assets', `zeros-${i}`), '');
      truncateSync(join(dir, 'assets', `zeros-${i}`), (options.fileMiB ?? 25) * MIB);
    }
    return execFileSync('sh', ['-c', 'tar -C "$1" -cf - . | zstd -q -c', 'sh', dir], { maxBuffer: 64 * MIB });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}` };
  if (body !== undefined) headers['content-type'] = body instanceof Uint8Array ? 'application/octet-stream' : 'application/json';
  const res = await fetch(`${api.url}/v1/projects/${path}`, { method, headers, ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function createApp(project: string, name: string): Promise<void> {
  const res = await call('POST', `${project}/apps`, { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const host = (project: string, app: string) => `${app}.${project}.${BASE_DOMAIN}`;

/** Waits until the operator reports `reason` on the app's Ready condition for its current generation. */
function readyReason(namespace: string, name: string, reason: string, timeoutMs = 60_000): Promise<RuntimeApp | undefined> {
  return eventually(
    `${namespace}/${name} Ready reason ${reason}`,
    () => apps.get(namespace, name),
    (app) => app?.status?.observedGeneration === app?.metadata?.generation && app?.status?.conditions?.find((c) => c.type === 'Ready')?.reason === reason,
    timeoutMs,
  );
}

/** Deploys without the API, as a GitOps pipeline does: the artifact into the bucket, a Build, a RuntimeApp pointing at it. */
async function deployBehindTheApi(namespace: string, name: string, artifact: Uint8Array): Promise<void> {
  const digest = createHash('sha256').update(artifact).digest('hex');
  const buildId = buildIdFor(digest);
  const key = artifactKey(namespace, name, buildId);
  await bucket.put(key, artifact);
  const app = await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: buildId } });
  await builds.create({
    metadata: {
      name: buildResourceName(name, buildId),
      namespace,
      ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name, uid: app.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { app: name, buildId, digest, size: artifact.length, objectKey: key },
  });
}

describe('bounded uploads and builds', () => {
  it('unpacks a decompression bomb as a stream, the API and the runtime within their bounds, and refuses more by the project quota, naming the figures', { timeout: 180_000 }, async () => {
    const project = member.project;
    await createApp(project, 'hello');
    expect((await call('POST', `${project}/apps/hello/deployments`, packWorker('export default { fetch: () => new Response("hello") };\n'))).status).toBe(200);
    await servedEverywhere([runtime], host(project, 'hello'), 'hello');

    const artifact = bomb('bomb');
    figures['bomb: compressed bytes'] = String(artifact.length);
    expect(artifact.length).toBeLessThan(64 * 1024);
    const [apiMemory, runtimeMemory] = await Promise.all([
      MemorySampler.fromResting(() => residentBytes(api.service.child.pid!)),
      MemorySampler.fromResting(() => treeResidentBytes(runtime.service.child.pid!)),
    ]);
    try {
      await createApp(project, 'bomb-0');
      const deployed = await call('POST', `${project}/apps/bomb-0/deployments`, artifact);
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
      await servedEverywhere([runtime], host(project, 'bomb-0'), 'bomb', 120_000);

      // The same 8 KB twice more, to other apps of the project: past its quota, refused before anything is stored.
      await Promise.all([createApp(project, 'bomb-1'), createApp(project, 'bomb-2')]);
      const refused = await Promise.all(['bomb-1', 'bomb-2'].map((app) => call('POST', `${project}/apps/${app}/deployments`, artifact)));
      for (const res of refused) {
        expect(res.status, JSON.stringify(res.body)).toBe(409);
        expect(res.body.detail).toMatch(
          new RegExp(
            `^Project ${project}'s other apps' active builds unpack to \\d{9} bytes and this build to at least \\d+ bytes: together more than the project's quota of ${QUOTA} bytes of unpacked builds\\.`,
          ),
        );
      }
      for (const app of ['bomb-1', 'bomb-2']) {
        expect((await call('GET', `${project}/apps/${app}/builds`)).body).toEqual({ builds: [] });
        const stored: string[] = [];
        for await (const item of listAll(bucket, appArtifactPrefix(project, app))) stored.push(item.key);
        expect(stored).toEqual([]);
      }
      const view = (await call('GET', project)).body.project;
      expect(view.quotas).toEqual({ active_builds_unpacked_bytes: QUOTA, stored_builds_bytes: 2 * 1024 ** 3 });
      expect(view.usage.active_builds_unpacked_bytes).toBeGreaterThan(250 * MIB);
      expect(view.usage.active_builds_unpacked_bytes).toBeLessThan(QUOTA);
    } finally {
      apiMemory.stop();
      runtimeMemory.stop();
    }
    figures['one bomb: cw-api growth MiB'] = (apiMemory.growth / MIB).toFixed(1);
    figures['one bomb: cw-runtime + workerd growth MiB'] = (runtimeMemory.growth / MIB).toFixed(1);
    expect(apiMemory.growth).toBeLessThan(API_BOUND);
    expect(runtimeMemory.growth).toBeLessThan(RUNTIME_BOUND);
    expect((await send(runtime.port, host(project, 'hello'))).body).toBe('hello');
  });

  it('reads eight bombs at once, every upload slot busy, each one whole, and stays within its bound', { timeout: 180_000 }, async () => {
    const artifact = bomb('headless', { entry: false });
    const names = Array.from({ length: 8 }, (_, i) => `wide-${i}`);
    await Promise.all(names.map((name) => createApp(second, name)));
    const apiMemory = await MemorySampler.fromResting(() => residentBytes(api.service.child.pid!));
    const started = performance.now();
    let answers: { status: number; body: any }[];
    try {
      answers = await Promise.all(names.map((name) => call('POST', `${second}/apps/${name}/deployments`, artifact)));
    } finally {
      apiMemory.stop();
    }
    figures['eight bombs at once: seconds'] = ((performance.now() - started) / 1000).toFixed(1);
    figures['eight bombs at once: cw-api growth MiB'] = (apiMemory.growth / MIB).toFixed(1);
    figures['eight bombs at once: cw-api peak MiB'] = (apiMemory.peak / MIB).toFixed(1);
    for (const res of answers) {
      // Read to the end (250 MiB each, within the quota), then refused for what it lacks.
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.detail).toMatch(/^artifact has no entry point/);
    }
    expect(apiMemory.growth).toBeLessThan(API_BOUND);
  });

  it('refuses builds past the project quota or the data directory on the RuntimeApp, deployed behind the API, and keeps serving the others', { timeout: 180_000 }, async () => {
    // In the first project, beside its 262 MB bomb: 10 MiB more is past the project's 256 MiB on the runtime's
    // own count (and within the data directory's 283 MB).
    await deployBehindTheApi(member.project, 'gitops-quota', bomb('quota', { files: 1, fileMiB: 10 }));
    const quota = await readyReason(member.project, 'gitops-quota', 'QuotaExceeded');
    const deployedQuota = quota?.status?.conditions?.find((c) => c.type === 'Deployed');
    expect(deployedQuota).toMatchObject({ status: 'False', reason: 'QuotaExceeded' });
    expect(deployedQuota?.message).toMatch(new RegExp(`more than the project's quota of ${QUOTA} bytes of unpacked builds`));

    // In the second project (no quota used): the replica's data directory has no room for 25 MiB more.
    await deployBehindTheApi(second, 'gitops-disk', bomb('disk', { files: 1 }));
    const disk = await readyReason(second, 'gitops-disk', 'InsufficientStorage');
    const deployedDisk = disk?.status?.conditions?.find((c) => c.type === 'Deployed');
    expect(deployedDisk).toMatchObject({ status: 'False', reason: 'InsufficientStorage' });
    expect(deployedDisk?.message).toMatch(/^The runtime replica has no room for build b-[0-9a-f]{16}: the builds it serves take \d+ bytes of the 283115520 its data directory gives them/);

    // Nothing crashed, nothing was evicted: the replica serves what it served.
    expect((await send(runtime.port, host(member.project, 'hello'))).body).toBe('hello');
    expect((await send(runtime.port, host(member.project, 'bomb-0'))).body).toBe('bomb');
    // The refused app is routed, not served: its requests try to prepare it and answer 503 (AppPreparing).
    const refused = await send(runtime.port, host(second, 'gitops-disk'));
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('AppPreparing');
  });

  it('answers slow uploads 408 within seconds, so slow clients holding every upload slot free them quickly', { timeout: 60_000 }, async () => {
    await createApp(member.project, 'slow-target');
    const start = packWorker('export default { fetch: () => new Response("fast") };\n').subarray(0, 10); // a valid beginning
    const { port } = new URL(api.url);
    /** A deploy that sends its headers and the artifact's first bytes, then nothing; resolves with its status line once answered. */
    const slowClient = () =>
      new Promise<{ status: number; afterMs: number }>((resolve, reject) => {
        const started = performance.now();
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /v1/projects/${member.project}/apps/slow-target/deployments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${member.token}\r\n` +
              'Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n',
          );
          socket.write(start);
        });
        socket.once('data', (data) => {
          resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1]), afterMs: performance.now() - started });
          socket.destroy();
        });
        socket.once('error', reject);
      });
    // Eight slow clients: every upload slot of the process (the user may hold eight here). Each 408 comes from
    // the route past its slot, so eight of them after 10 s say the eight slots were held that long, and no more.
    const slow = Array.from({ length: 8 }, () => slowClient());
    const answers = await Promise.all(slow);
    figures['slow uploads: answered 408 after (s)'] = answers.map((a) => (a.afterMs / 1000).toFixed(1)).join(' ');
    for (const answer of answers) {
      expect(answer.status).toBe(408);
      // The minimum rate is checked from 10 s on: a slot is held that long, not the five minutes of a request.
      expect(answer.afterMs).toBeLessThan(20_000);
    }
    const after = await call('POST', `${member.project}/apps/slow-target/deployments`, packWorker('export default { fetch: () => new Response("fast") };\n'));
    expect(after.status, JSON.stringify(after.body)).toBe(200);
  });

  it('lets a user follow at most their number of log streams (429 past it), and frees one as it closes', { timeout: 60_000 }, async () => {
    const url = `${api.url}/v1/projects/${member.project}/apps/hello/logs`;
    const headers = { authorization: `Bearer ${member.token}` };
    const open = async () => {
      const abort = new AbortController();
      const res = await fetch(url, { headers, signal: abort.signal });
      return { res, close: () => abort.abort() };
    };
    const first = await open();
    const second = await open();
    expect([first.res.status, second.res.status]).toEqual([200, 200]);
    const third = await fetch(url, { headers });
    expect([third.status, third.headers.get('retry-after')]).toEqual([429, '10']);
    expect(((await third.json()) as { detail: string }).detail).toBe('You follow 2 log streams at once, the most a user may; close one (another terminal or tab) and retry.');
    first.close();
    // The API frees the slot when it sees the connection close.
    const again = await eventually(
      'a log stream once one closed',
      () => open(),
      (stream) => {
        if (stream.res.status !== 200) stream.close();
        return stream.res.status === 200;
      },
      10_000,
    );
    second.close();
    again.close();
  });
});
