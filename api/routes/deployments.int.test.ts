import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { NAMESPACES, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { listAll } from '../../src/object-store/list-all.ts';
import { appArtifactPrefix, artifactKey, buildIdFor, buildResourceName } from '../../src/platform/artifact-keys.ts';
import { APP_HOSTNAMES, BUILDS, PROJECT_DOMAINS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { STORED_BYTES_ANNOTATION } from '../../src/platform/stored-builds-quota.ts';
import { DEFAULT_ARTIFACT_LIMITS } from '../../src/app-artifacts/artifact.ts';
import { artifactFromFiles, artifactOf } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';
import { DEFAULT_UPLOAD_LIMITS } from './upload-slots.ts';

let platform: PlatformApp;
let project: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'deploys:write']);
});
afterAll(() => platform.close());

const headers = () => ({ authorization: `Bearer ${token}` });

/** An upload body written by hand that tells when the route starts reading it, which it does past its checks. */
class HeldBody extends PassThrough {
  readonly pulled: Promise<void>;
  #pull: () => void = () => {};
  constructor() {
    super();
    this.pulled = new Promise((resolve) => (this.#pull = resolve));
  }
  override read(size?: number): unknown {
    if (size !== 0) this.#pull(); // read(0) is the stream refilling its own buffer, not a reader
    return super.read(size);
  }
}
const workerSource = (text: string) => `export default { fetch() { return new Response(${JSON.stringify(text)}); } };`;
const worker = (text: string) => artifactFromFiles({ 'worker.js': workerSource(text) });
const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const builds = () => objectClient<Build>(platform.conn, BUILDS);

async function createApp(name: string): Promise<string> {
  const res = await platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps`, headers: headers(), payload: { name } });
  expect(res.statusCode).toBe(201);
  return res.json().app.app_id as string;
}

function deploy(appId: string, body: Uint8Array | Readable | string, query = '', contentType = 'application/octet-stream') {
  return platform.app.inject({
    method: 'POST',
    url: `/v1/projects/${project}/apps/${appId}/deployments${query}`,
    headers: { ...headers(), 'content-type': contentType },
    payload: body,
  });
}

async function storedKeys(appId: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of listAll(platform.artifacts, appArtifactPrefix(project, appId))) keys.push(item.key);
  return keys;
}

async function appBuilds(appId: string): Promise<Build[]> {
  return (await builds().list(project)).items.filter((b) => b.spec.app === appId);
}

/** A new user owning a new project with an app `site` on `on`, and how they upload to it. */
async function siteOwner(on: PlatformApp, scopes: Parameters<PlatformApp['tokenFor']>[1] = ['apps:write', 'deploys:write']) {
  const owner = await on.createUser();
  const id = await on.createProject(owner, { namespace: true });
  const as = { authorization: `Bearer ${await on.tokenFor(owner, scopes)}` };
  expect((await on.app.inject({ method: 'POST', url: `/v1/projects/${id}/apps`, headers: as, payload: { name: 'site' } })).statusCode).toBe(201);
  const upload = (payload: Uint8Array | Readable) =>
    on.app.inject({ method: 'POST', url: `/v1/projects/${id}/apps/site/deployments`, headers: { ...as, 'content-type': 'application/octet-stream' }, payload });
  return { id, as, upload };
}

describe('deploy', () => {
  it('stores the artifact at its content address, records the Build, then activates it', async () => {
    const appId = await createApp('hello');
    const artifact = worker('hello');
    const res = await deploy(appId, artifact);
    expect(res.statusCode).toBe(200);
    const digest = digestOf(artifact);
    const buildId = buildIdFor(digest);
    expect(res.json()).toStrictEqual({ app_id: appId, build_id: buildId, hosts: [`${appId}.${project}.apps.localhost`], uploaded: true });

    const stored = await platform.artifacts.get(artifactKey(project, appId, buildId));
    expect(stored?.kind === 'object' && Buffer.from(stored.body).equals(Buffer.from(artifact))).toBe(true);

    const app = await apps().get(project, appId);
    expect(app?.spec.activeBuildId).toBe(buildId);
    const build = await builds().get(project, buildResourceName(appId, buildId));
    expect(build?.spec).toStrictEqual({
      app: appId,
      buildId,
      digest,
      size: artifact.length,
      unpackedSize: workerSource('hello').length,
      objectKey: artifactKey(project, appId, buildId),
      deployOptions: {},
    });
    expect(build?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'RuntimeApp', name: appId, uid: app?.metadata?.uid, blockOwnerDeletion: true, controller: true })]);

    // Read-your-writes: the app and its builds show the deploy at once.
    const read = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}`, headers: headers() })).json().app;
    expect(read).toMatchObject({ active_build_id: buildId, builds: [{ build_id: buildId }] });
    const listed = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}/builds`, headers: headers() })).json();
    expect(listed.builds).toEqual([{ build_id: buildId, created_at: expect.any(String), size: artifact.length, digest: `sha256:${digest}`, active: true, deploy_options: { hostnames: [] } }]);
  });

  it('applies the options: host names (normalised), the concurrency bound, the one environment', async () => {
    const appId = await createApp('options');
    await platform.managedDomain(project, 'example.com');
    const res = await deploy(appId, worker('options'), '?hostnames=Shop.Example.com.,%20www.example.com,shop.example.com&max_concurrent_requests=50&environment=production');
    expect(res.statusCode).toBe(200);
    expect(res.json().hosts).toEqual([`${appId}.${project}.apps.localhost`, 'shop.example.com', 'www.example.com']);
    const app = await apps().get(project, appId);
    expect(app?.spec).toMatchObject({ hostnames: ['shop.example.com', 'www.example.com'], maxConcurrentRequests: 50 });

    // Options are per deployment: one left out is its default (no deploy host names, the runtime's bound),
    // not the previous deploy's; an empty host name list is none too.
    expect((await deploy(appId, worker('options 2'))).json().hosts).toEqual([`${appId}.${project}.apps.localhost`]);
    const after = (await apps().get(project, appId))?.spec;
    expect([after?.hostnames, after?.maxConcurrentRequests]).toEqual([undefined, undefined]);
    expect((await deploy(appId, worker('options 3'), '?hostnames=www.example.com&max_concurrent_requests=5')).json().hosts).toHaveLength(2);
    expect((await deploy(appId, worker('options 4'), '?hostnames=')).json().hosts).toEqual([`${appId}.${project}.apps.localhost`]);
    expect((await apps().get(project, appId))?.spec.hostnames).toBeUndefined();
    expect((await apps().get(project, appId))?.spec.maxConcurrentRequests).toBeUndefined();
  });

  it('binds a custom host name only inside a managed project domain (or one the app already has)', async () => {
    const appId = await createApp('custom-hosts');
    const squat = await deploy(appId, worker('squat'), '?hostnames=www.bank.example');
    expect(squat.statusCode).toBe(403);
    expect(squat.json().detail).toMatch(/www\.bank\.example is a custom domain this project has not shown it controls/);
    expect((await apps().get(project, appId))?.spec.activeBuildId).toBeUndefined();
    await platform.managedDomain(project, 'bank.example');
    expect((await deploy(appId, worker('owned'), '?hostnames=www.bank.example')).json().hosts).toContain('www.bank.example');

    // Found not delegated an hour ago: a brief demotion (a registrar's hiccup) keeps the name for a day.
    const demoted = (hoursAgo: number) => ({
      status: {
        state: 'pending_delegation' as const,
        conditions: [
          {
            type: 'Delegated',
            status: 'False' as const,
            reason: 'NotDelegated',
            message: 'not delegated',
            lastTransitionTime: new Date(Date.now() - hoursAgo * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });
    const domains = objectClient<ProjectDomain>(platform.conn, PROJECT_DOMAINS);
    await domains.patchStatus(project, 'bank-example', demoted(1));
    await vi.waitFor(async () => expect((await deploy(appId, worker('brief'), '?hostnames=www.bank.example')).statusCode).toBe(200));
    // A day later the domain is no longer the project's: a name the app has only from an earlier deploy proves nothing.
    await domains.patchStatus(project, 'bank-example', demoted(25));
    await vi.waitFor(async () => {
      const again = await deploy(appId, worker('kept'), '?hostnames=www.bank.example');
      expect(again.statusCode).toBe(403);
      expect(again.json().detail).toMatch(/www\.bank\.example is a custom domain this project has not shown it controls/);
    });
    // Nor does an attach whose proof is still pending (an external_records binding anyone can make): it is not served.
    const bindings = objectClient<AppHostname>(platform.conn, APP_HOSTNAMES);
    const binding = await bindings.create({
      metadata: { name: 'www.bank.example', namespace: project },
      spec: { appRef: { name: appId }, hostname: 'www.bank.example', dnsMode: 'external_records' },
    });
    expect((await deploy(appId, worker('pending'), '?hostnames=www.bank.example')).statusCode).toBe(403);
    expect((await deploy(appId, worker('pending'), '?hostnames=')).json().hosts).not.toContain('www.bank.example');
    // Verified (the AppHostname controller, not running here, would write this): served as an attached name,
    // whatever a deploy's hostnames say, and proof enough to name it.
    await bindings.replaceStatus({ ...binding, status: { state: 'active' } });
    await vi.waitFor(async () => expect((await deploy(appId, worker('verified'), '?hostnames=')).json().hosts).toContain('www.bank.example'));
    expect((await deploy(appId, worker('verified'), '?hostnames=www.bank.example')).statusCode).toBe(200);
  });

  it.each([
    ['?hostnames=not_a_host', 400, 'not_a_host'],
    ['?hostnames=' + Array.from({ length: 33 }, (_, i) => `h${i}.example.com`).join(','), 400, 'at most 32'],
    ['?hostnames=x.other-project.apps.localhost', 400, 'apps.localhost'],
    ['?max_concurrent_requests=0', 400, 'max_concurrent_requests'],
    ['?max_concurrent_requests=10001', 400, 'max_concurrent_requests'],
    ['?max_concurrent_requests=lots', 400, 'max_concurrent_requests'],
    ['?environment=staging', 400, 'environment'],
    ['?unknown=1', 400, 'unknown'],
  ])('refuses the options %s before reading the body', async (query, status, mention) => {
    const appId = await createApp(`bad-options-${status}-${Math.random().toString(36).slice(2, 8)}`);
    const res = await deploy(appId, worker('x'), query);
    expect(res.statusCode).toBe(status);
    expect(res.json().detail).toContain(mention);
    expect(await storedKeys(appId)).toEqual([]);
  });

  it('refuses a host name another app is bound to, or another app’s default host', async () => {
    const first = await createApp('host-owner');
    expect((await deploy(first, worker('first'), '?hostnames=claimed.example.com')).statusCode).toBe(200);
    const second = await createApp('host-thief');
    for (const name of ['claimed.example.com', `${first}.${project}.apps.localhost`]) {
      const res = await deploy(second, worker('second'), `?hostnames=${name}`);
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toContain(name);
    }
    // Its own default host is always served; naming it binds nothing extra.
    expect((await deploy(second, worker('second'), `?hostnames=${second}.${project}.apps.localhost`)).json().hosts).toEqual([`${second}.${project}.apps.localhost`]);
  });

  it.each([
    ['random bytes', new Uint8Array([1, 2, 3, 4, 5]), 'zstd'],
    ['gzip', gzipSync(Buffer.from('worker.js')), 'gzip'],
    ['corrupt zstd', Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(32, 7)]), 'zstd'],
    ['zstd that is not tar', zstdCompressSync(Buffer.alloc(1024, 'x')), 'tar'],
    [
      'path traversal',
      artifactOf([
        { name: 'worker.js', content: 'export default {}' },
        { name: '../evil.js', content: 'x' },
      ]),
      '..',
    ],
    ['a symbolic link', artifactOf([{ name: 'worker.js', type: '2', linkname: '/etc/passwd' }]), 'link'],
    ['no worker.js', artifactFromFiles({ 'lib.js': 'export const x = 1;' }), 'worker.js'],
    ['an empty body', new Uint8Array(0), 'zstd'],
  ])('refuses %s with 400, storing and changing nothing', async (_what, body, mention) => {
    const appId = await createApp(`invalid-${Math.random().toString(36).slice(2, 8)}`);
    const before = await apps().get(project, appId);
    const res = await deploy(appId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ title: 'Bad Request', status: 400 });
    expect(res.json().detail).toContain(mention);
    expect(await storedKeys(appId)).toEqual([]);
    expect(await appBuilds(appId)).toEqual([]);
    // Its spec untouched (the RuntimeApp controller may still write its status meanwhile).
    const after = await apps().get(project, appId);
    expect(after?.metadata?.generation).toBe(before?.metadata?.generation);
    expect(after?.spec).toEqual(before?.spec);
  });

  it('refuses an upload over the limit with 413 naming it, declared or streamed', async () => {
    const appId = await createApp('too-large');
    const limit = DEFAULT_ARTIFACT_LIMITS.maxCompressedBytes;
    const declared = await deploy(appId, Buffer.alloc(limit + 1));
    expect(declared.statusCode).toBe(413);
    expect(declared.json().detail).toContain(String(limit));

    // No Content-Length: read until the limit is passed, then refused. It is checked as it arrives, so it
    // must be a valid artifact that far: incompressible assets, 72 MiB of them.
    const big = artifactOf([{ name: 'worker.js', content: 'export default {};' }, ...[1, 2, 3].map((i) => ({ name: `assets/noise-${i}`, content: randomBytes(24 * 1024 * 1024) }))]);
    expect(big.length).toBeGreaterThan(limit);
    const streamed = await deploy(
      appId,
      Readable.from(
        (function* () {
          for (let at = 0; at < big.length; at += 1024 * 1024) yield big.subarray(at, at + 1024 * 1024);
        })(),
      ),
    );
    expect(streamed.statusCode).toBe(413);
    expect(streamed.json().detail).toContain(String(limit));
    expect(await storedKeys(appId)).toEqual([]);
    expect((await apps().get(project, appId))?.spec.activeBuildId).toBeUndefined();
  });

  it('answers 415 for a JSON body, 400 for no body, 404 for an unknown app', async () => {
    const appId = await createApp('content-types');
    expect((await deploy(appId, '{}', '', 'application/json')).statusCode).toBe(415);
    const none = await platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps/${appId}/deployments`, headers: headers() });
    expect(none.statusCode).toBe(400);
    expect(none.json().detail).toContain('application/octet-stream');
    const missing = await deploy('no-such-app', worker('x'));
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toContain('no-such-app');
  });

  it('is idempotent: the same artifact twice is the same build, stored once', async () => {
    const appId = await createApp('twice');
    const artifact = worker('twice');
    const first = await deploy(appId, artifact);
    const second = await deploy(appId, artifact);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toStrictEqual(first.json());
    expect(await storedKeys(appId)).toHaveLength(1);
    expect(await appBuilds(appId)).toHaveLength(1);
  });
});

describe('builds and rollbacks', () => {
  it('lists builds newest first and rolls back to an earlier one without an upload', async () => {
    const appId = await createApp('rollback');
    const a = (await deploy(appId, worker('a'))).json().build_id as string;
    const b = (await deploy(appId, worker('b'))).json().build_id as string;
    expect((await apps().get(project, appId))?.spec.activeBuildId).toBe(b);
    const listed = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}/builds`, headers: headers() })).json().builds;
    expect(listed.map((x: { build_id: string; active: boolean }) => [x.build_id, x.active])).toEqual([
      [b, true],
      [a, false],
    ]);

    const rollback = (build_id: string) => platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps/${appId}/rollbacks`, headers: headers(), payload: { build_id } });
    const unknown = await rollback('b-0000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toContain('b-0000000000000000');
    expect((await apps().get(project, appId))?.spec.activeBuildId).toBe(b);

    const back = await rollback(a);
    expect(back.statusCode).toBe(200);
    expect(back.json()).toStrictEqual({ app_id: appId, build_id: a, hosts: [`${appId}.${project}.apps.localhost`], uploaded: false });
    expect((await apps().get(project, appId))?.spec.activeBuildId).toBe(a);
    const after = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}`, headers: headers() })).json().app;
    expect(after.active_build_id).toBe(a);
    expect(await storedKeys(appId)).toHaveLength(2);
  });

  it('keeps the most recently uploaded builds and the RuntimeApp controller prunes older ones, Build and artifact; an upload again counts as new', async () => {
    const keeping = await platformApp({ maxBuildsPerApp: 2, runtimeAppArtifacts: (bucket) => bucket });
    try {
      const owner = await keeping.createUser();
      const project = await keeping.createProject(owner, { namespace: true });
      const auth = { authorization: `Bearer ${await keeping.tokenFor(owner, ['apps:write', 'deploys:write'])}` };
      const appId = (await keeping.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps`, headers: auth, payload: { name: 'kept' } })).json().app.app_id as string;
      const up = async (text: string) => {
        const res = await keeping.app.inject({
          method: 'POST',
          url: `/v1/projects/${project}/apps/${appId}/deployments`,
          headers: { ...auth, 'content-type': 'application/octet-stream' },
          payload: worker(text),
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().build_id as string;
      };
      const state = async () => {
        const listed = (await keeping.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}/builds`, headers: auth })).json().builds.map((b: { build_id: string }) => b.build_id);
        const stored: string[] = [];
        for await (const item of listAll(keeping.artifacts, appArtifactPrefix(project, appId))) stored.push(item.key);
        const recorded = (await builds().list(project)).items.filter((b) => b.spec.app === appId).map((b) => b.spec.buildId);
        return { listed, stored: stored.sort(), recorded: recorded.sort() };
      };
      // Retention is the controller's: each state is waited for, not read once after the deploy.
      const settles = (expected: { listed: string[]; stored: string[]; recorded: string[] }) => vi.waitFor(async () => expect(await state()).toEqual(expected), { timeout: 10_000, interval: 50 });
      const a = await up('a');
      const b = await up('b');
      const c = await up('c');
      const keys = (...ids: string[]) => ids.map((id) => artifactKey(project, appId, id)).sort();
      await settles({ listed: [c, b], stored: keys(b, c), recorded: [b, c].sort() });
      // `b` again (still stored): it counts as uploaded now, so `c` is the oldest when `d` arrives.
      expect(await up('b')).toBe(b);
      await settles({ listed: [b, c], stored: keys(b, c), recorded: [b, c].sort() });
      const d = await up('d');
      await settles({ listed: [d, b], stored: keys(b, d), recorded: [b, d].sort() });
      // `a` again (pruned before): stored and recorded anew, the newest; `b` goes.
      expect(await up('a')).toBe(a);
      await settles({ listed: [a, d], stored: keys(a, d), recorded: [a, d].sort() });
    } finally {
      await keeping.close();
    }
  });

  it('holds a project to its stored-builds quota: the oldest builds no app serves go, an upload that would not fit beside the kept ones is refused', async () => {
    // Incompressible padding, so each artifact's stored size is known before it is uploaded.
    const padded = (text: string, bytes = 20_000) => artifactFromFiles({ 'worker.js': workerSource(text), 'assets/pad.bin': randomBytes(bytes) });
    const [a1, a2, b1, b2, c1, d1] = ['a1', 'a2', 'b1', 'b2', 'c1', 'd1'].map((text) => padded(text));
    const quota = a1!.byteLength + a2!.byteLength + b1!.byteLength + 10_000;
    const bounded = await platformApp({ projectStoredBuildsQuota: quota, runtimeAppArtifacts: (bucket) => bucket });
    try {
      const owner = await bounded.createUser();
      const project = await bounded.createProject(owner, { namespace: true });
      const auth = { authorization: `Bearer ${await bounded.tokenFor(owner, ['apps:write', 'deploys:write', 'projects:read'])}` };
      const app = async (name: string) => (await bounded.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps`, headers: auth, payload: { name } })).json().app.app_id as string;
      const [appA, appB, appC, appD] = [await app('a'), await app('b'), await app('c'), await app('d')];
      const upload = (appId: string, artifact: Uint8Array) =>
        bounded.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps/${appId}/deployments`, headers: { ...auth, 'content-type': 'application/octet-stream' }, payload: artifact });
      const up = async (appId: string, artifact: Uint8Array) => {
        const res = await upload(appId, artifact);
        expect(res.statusCode, res.body).toBe(200);
        return res.json().build_id as string;
      };
      const stored = async () => {
        const keys: string[] = [];
        for await (const item of listAll(bounded.artifacts, `apps/${project}/`)) keys.push(item.key);
        const recorded = (await builds().list(project)).items.map((b) => artifactKey(project, b.spec.app, b.spec.buildId));
        return { keys: keys.sort(), recorded: recorded.sort() };
      };
      const settles = (...expected: Array<[string, string]>) => {
        const keys = expected.map(([appId, id]) => artifactKey(project, appId, id)).sort();
        return vi.waitFor(async () => expect(await stored()).toEqual({ keys, recorded: keys }), { timeout: 10_000, interval: 50 });
      };

      const ids = { a1: await up(appA, a1!), a2: await up(appA, a2!), b1: await up(appB, b1!) };
      await settles([appA, ids.a1], [appA, ids.a2], [appB, ids.b1]);
      // Past the quota: the project's oldest build no app serves goes (another app's), Build and artifact.
      const idB2 = await up(appB, b2!);
      await settles([appA, ids.a2], [appB, ids.b1], [appB, idB2]);
      const view = (await bounded.app.inject({ method: 'GET', url: `/v1/projects/${project}`, headers: auth })).json().project;
      expect(view.quotas.stored_builds_bytes).toBe(quota);
      expect(view.usage.stored_builds_bytes).toBe(a2!.byteLength + b1!.byteLength + b2!.byteLength);

      const idC1 = await up(appC, c1!);
      await settles([appA, ids.a2], [appB, idB2], [appC, idC1]);
      // Every build left is an app's active one: a fourth would not fit beside them, and nothing of it is kept.
      const refused = await upload(appD, d1!);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().detail).toContain(`quota of ${quota} bytes`);
      const tooLarge = await upload(appD, padded('d2', quota));
      expect(tooLarge.statusCode, tooLarge.body).toBe(413);
      const left = [artifactKey(project, appA, ids.a2), artifactKey(project, appB, idB2), artifactKey(project, appC, idC1)].sort();
      expect(await stored()).toEqual({ keys: left, recorded: left });
    } finally {
      await bounded.close();
    }
  });

  it('deletes the artifact of a Build deleted by hand, unless the app keeps that build', async () => {
    const appId = await createApp('by-hand');
    const old = (await deploy(appId, worker('old'))).json().build_id as string;
    const active = (await deploy(appId, worker('active'))).json().build_id as string;
    const recorded = await builds().get(project, buildResourceName(appId, active));
    expect(recorded?.metadata?.annotations?.[STORED_BYTES_ANNOTATION]).toBe(String(recorded?.spec.size));
    await builds().delete(project, buildResourceName(appId, old));
    await builds().delete(project, buildResourceName(appId, active));
    await vi.waitFor(async () => expect(await storedKeys(appId)).toEqual([artifactKey(project, appId, active)]), { timeout: 10_000, interval: 50 });

    // Written again by hand, saying it stores nothing: the operator measures what the bucket holds and writes it down.
    const { name, namespace } = { name: buildResourceName(appId, active), namespace: project };
    await builds().create({ metadata: { name, namespace }, spec: { ...recorded!.spec, size: 0 } });
    await vi.waitFor(async () => expect((await builds().get(project, name))?.metadata?.annotations?.[STORED_BYTES_ANNOTATION]).toBe(String(recorded?.spec.size)), { timeout: 10_000, interval: 50 });
  });

  it('does not roll back to a build of another app, and validates the body', async () => {
    const mine = await createApp('rollback-mine');
    const theirs = await createApp('rollback-theirs');
    const foreign = (await deploy(theirs, worker('theirs'))).json().build_id as string;
    const url = `/v1/projects/${project}/apps/${mine}/rollbacks`;
    expect((await platform.app.inject({ method: 'POST', url, headers: headers(), payload: { build_id: foreign } })).statusCode).toBe(404);
    expect((await platform.app.inject({ method: 'POST', url, headers: headers(), payload: {} })).statusCode).toBe(400);
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/nope/builds`, headers: headers() })).statusCode).toBe(404);
  });
});

describe('deploy options per deployment', () => {
  const rollback = (appId: string, build_id: string) => platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps/${appId}/rollbacks`, headers: headers(), payload: { build_id } });
  const listedOptions = async (appId: string) =>
    Object.fromEntries(
      (await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}/builds`, headers: headers() }))
        .json()
        .builds.map((b: { build_id: string; deploy_options?: unknown }) => [b.build_id, b.deploy_options]),
    );
  const options = async (appId: string) => {
    const spec = (await apps().get(project, appId))?.spec;
    return { activeBuildId: spec?.activeBuildId, hostnames: spec?.hostnames, maxConcurrentRequests: spec?.maxConcurrentRequests };
  };

  it('records each deploy’s options on its build, lists them, and a rollback applies them again (a default where one was left out)', async () => {
    const appId = await createApp('per-deploy');
    const [own, www, shop] = [`${appId}.${project}.apps.localhost`, `www.${project}.apps.localhost`, `shop.${project}.apps.localhost`];
    const a = (await deploy(appId, worker('a'), `?hostnames=${www}&max_concurrent_requests=7`)).json().build_id as string;
    const b = (await deploy(appId, worker('b'))).json().build_id as string;
    expect(await options(appId)).toEqual({ activeBuildId: b, hostnames: undefined, maxConcurrentRequests: undefined });
    expect((await builds().get(project, buildResourceName(appId, a)))?.spec.deployOptions).toEqual({ hostnames: [www], maxConcurrentRequests: 7 });
    expect((await builds().get(project, buildResourceName(appId, b)))?.spec.deployOptions).toEqual({});
    expect(await listedOptions(appId)).toEqual({ [a]: { hostnames: [www], max_concurrent_requests: 7 }, [b]: { hostnames: [] } });

    const back = await rollback(appId, a);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json()).toStrictEqual({ app_id: appId, build_id: a, hosts: [own, www], uploaded: false });
    expect(await options(appId)).toEqual({ activeBuildId: a, hostnames: [www], maxConcurrentRequests: 7 });
    expect((await rollback(appId, b)).json().hosts).toEqual([own]);
    expect(await options(appId)).toEqual({ activeBuildId: b, hostnames: undefined, maxConcurrentRequests: undefined });

    // The same artifact deployed again is the same build: it records its latest deploy's options.
    expect((await deploy(appId, worker('a'), `?hostnames=${shop}`)).json()).toMatchObject({ build_id: a, hosts: [own, shop] });
    expect(await listedOptions(appId)).toEqual({ [a]: { hostnames: [shop] }, [b]: { hostnames: [] } });
    expect((await rollback(appId, b)).statusCode).toBe(200);
    expect((await rollback(appId, a)).json().hosts).toEqual([own, shop]);
    expect(await options(appId)).toEqual({ activeBuildId: a, hostnames: [shop], maxConcurrentRequests: undefined });
    // Rolling back to the active build puts its options back too (they were changed by hand here).
    await apps().patch(project, appId, { spec: { hostnames: null, maxConcurrentRequests: 3 } });
    expect((await rollback(appId, a)).json().hosts).toEqual([own, shop]);
    expect(await options(appId)).toEqual({ activeBuildId: a, hostnames: [shop], maxConcurrentRequests: undefined });
  });

  it('leaves custom domains attached through the domains API bound across deploys and rollbacks', async () => {
    const appId = await createApp('attached-stays');
    const own = `${appId}.${project}.apps.localhost`;
    const deployed = `deployed.${project}.apps.localhost`;
    const v1 = (await deploy(appId, worker('attached v1'))).json().build_id as string;
    // Attached and verified (the AppHostname controller, not running here, would write the status).
    const bindings = objectClient<AppHostname>(platform.conn, APP_HOSTNAMES);
    const binding = await bindings.create({
      metadata: { name: 'www.attached.example', namespace: project },
      spec: { appRef: { name: appId }, hostname: 'www.attached.example', dnsMode: 'external_records' },
    });
    await bindings.replaceStatus({ ...binding, status: { state: 'active' } });
    await vi.waitFor(async () => expect((await deploy(appId, worker('attached v2'), `?hostnames=${deployed}`)).json().hosts).toEqual([own, deployed, 'www.attached.example']));

    const back = await rollback(appId, v1);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().hosts).toEqual([own, 'www.attached.example']);
    expect((await apps().get(project, appId))?.spec.hostnames).toBeUndefined();
    expect((await bindings.get(project, 'www.attached.example'))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('keeps the app’s options on a rollback to a build that recorded none (deployed before builds recorded them)', async () => {
    const appId = await createApp('unrecorded');
    const www = `www.${project}.apps.localhost`;
    const old = (await deploy(appId, worker('old'))).json().build_id as string;
    // As a Build recorded before this change looks: no deployOptions.
    await builds().patch(project, buildResourceName(appId, old), { spec: { deployOptions: null } });
    const current = (await deploy(appId, worker('current'), `?hostnames=${www}&max_concurrent_requests=9`)).json().build_id as string;
    await vi.waitFor(async () => expect(await listedOptions(appId)).toEqual({ [old]: undefined, [current]: { hostnames: [www], max_concurrent_requests: 9 } }));

    const back = await rollback(appId, old);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().hosts).toEqual([`${appId}.${project}.apps.localhost`, www]);
    expect(await options(appId)).toEqual({ activeBuildId: old, hostnames: [www], maxConcurrentRequests: 9 });
  });

  it('refuses a rollback whose recorded host name another app holds now (409 naming it) and changes nothing', async () => {
    const first = await createApp('gave-up-host');
    const second = await createApp('took-host');
    const host = `contested.${project}.apps.localhost`;
    const withHost = (await deploy(first, worker('with host'), `?hostnames=${host}&max_concurrent_requests=4`)).json().build_id as string;
    expect((await deploy(first, worker('without host'), '?max_concurrent_requests=8')).statusCode).toBe(200);
    expect((await deploy(second, worker('taker'), `?hostnames=${host}`)).statusCode).toBe(200);
    const before = await apps().get(project, first);

    const refused = await rollback(first, withHost);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().detail).toContain(`Build ${withHost} was deployed with host names it cannot have again, so nothing was rolled back`);
    expect(refused.json().detail).toContain(`${host} is already bound to another app`);
    const after = await apps().get(project, first);
    expect(after?.metadata?.generation).toBe(before?.metadata?.generation);
    expect(after?.spec).toEqual(before?.spec);
    expect(after?.spec.maxConcurrentRequests).toBe(8);
    expect((await apps().get(project, second))?.spec.hostnames).toEqual([host]);
  });

  it('refuses a rollback to a custom host name the project no longer controls (403) and changes nothing', async () => {
    const appId = await createApp('lost-domain');
    await platform.managedDomain(project, 'lost.example');
    const owned = (await deploy(appId, worker('owned name'), '?hostnames=www.lost.example')).json().build_id as string;
    expect((await deploy(appId, worker('no name'))).statusCode).toBe(200);
    // The project deletes its domain: a rollback must not bind a name of it again.
    await objectClient<ProjectDomain>(platform.conn, PROJECT_DOMAINS).delete(project, 'lost-example');
    await vi.waitFor(async () => {
      const refused = await rollback(appId, owned);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().detail).toMatch(/www\.lost\.example is a custom domain this project has not shown it controls/);
    });
    expect((await apps().get(project, appId))?.spec.hostnames).toBeUndefined();
  });
});

describe('uploads in progress', () => {
  it('reads at most perUser uploads of one user (429) and total in all (503), freeing a slot when an upload ends', async () => {
    const limited = await platformApp({ uploadLimits: { ...DEFAULT_UPLOAD_LIMITS, total: 2, perUser: 1 } });
    try {
      const [a, b, c] = await Promise.all([siteOwner(limited), siteOwner(limited), siteOwner(limited)]);
      // Uploads still arriving: their bodies have not ended.
      const slowA = new HeldBody();
      const slowB = new HeldBody();
      const pendingA = a.upload(slowA);
      const pendingB = b.upload(slowB);
      // The start of a real artifact: a body the route could only refuse at its end (a bad first chunk is
      // refused at once, which would free its slot before the requests below arrive).
      const start = Buffer.from(worker('partial')).subarray(0, 8);
      slowA.write(start);
      slowB.write(start);
      await Promise.all([slowA.pulled, slowB.pulled]); // both hold their slots and are being read

      const mine = await a.upload(worker('a2'));
      expect(mine.statusCode, mine.body).toBe(429);
      expect(mine.headers['retry-after']).toBe('5');
      expect(mine.json().detail).toContain('You have 1 deploy uploads in progress');
      const full = await c.upload(worker('c1'));
      expect(full.statusCode, full.body).toBe(503);
      expect(full.headers['retry-after']).toBe('5');

      slowA.end();
      expect((await pendingA).statusCode).toBe(400); // not an artifact: answered, and its slot freed
      expect((await c.upload(worker('c1'))).statusCode).toBe(200);
      slowB.end();
      expect((await pendingB).statusCode).toBe(400);
      expect((await a.upload(worker('a2'))).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers 404 and keeps nothing when the project is deleted while the upload arrives', async () => {
    const owner = await platform.createUser();
    const doomed = await platform.createProject(owner, { namespace: true });
    const as = { authorization: `Bearer ${await platform.tokenFor(owner, ['apps:write', 'deploys:write'])}` };
    expect((await platform.app.inject({ method: 'POST', url: `/v1/projects/${doomed}/apps`, headers: as, payload: { name: 'site' } })).statusCode).toBe(201);
    const body = new HeldBody();
    const upload = platform.app.inject({ method: 'POST', url: `/v1/projects/${doomed}/apps/site/deployments`, headers: { ...as, 'content-type': 'application/octet-stream' }, payload: body });
    await body.pulled; // the app was found; the body is on its way
    await objectClient<KubeObject>(platform.conn, NAMESPACES).delete('', doomed);
    await vi.waitFor(async () => expect((await objectClient<KubeObject>(platform.conn, NAMESPACES).get('', doomed))?.metadata?.deletionTimestamp ?? 'gone').toBeTruthy());
    body.end(Buffer.from(worker('too late')));
    const answered = await upload;
    expect(answered.statusCode, answered.body).toBe(404);
    expect(answered.json().detail).toBe('The app site was deleted, with its project, during the upload.');
    const left: string[] = [];
    for await (const item of listAll(platform.artifacts, appArtifactPrefix(doomed, 'site'))) left.push(item.key);
    expect(left).toEqual([]);
  });

  it('refuses a host name another app took while the upload was arriving (409), checking again as it writes', async () => {
    const slowApp = await createApp('slow-claim');
    const fastApp = await createApp('fast-claim');
    const host = `race.${project}.apps.localhost`;
    const body = new HeldBody();
    const slow = deploy(slowApp, body, `?hostnames=${host}`);
    await body.pulled; // checked before the body, found free
    expect((await deploy(fastApp, worker('fast'), `?hostnames=${host}`)).statusCode).toBe(200);
    body.end(Buffer.from(worker('slow')));
    const refused = await slow;
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().detail).toContain(`${host} is already bound to another app`);
    expect((await apps().get(project, slowApp))?.spec.hostnames).toBeUndefined();
    expect((await apps().get(project, fastApp))?.spec.hostnames).toEqual([host]);
  });

  it('gives the slot of the slowest upload under the yield rate to an upload that finds every slot taken (408 to it)', async () => {
    const limited = await platformApp({ uploadLimits: { ...DEFAULT_UPLOAD_LIMITS, total: 2, perUser: 1, minBytesPerSecond: 1, graceMs: 200, yieldBelowBytesPerSecond: 1_000_000 } });
    try {
      const [a, b, c] = await Promise.all([siteOwner(limited), siteOwner(limited), siteOwner(limited)]);
      const start = Buffer.from(worker('partial')).subarray(0, 8);
      const [slowA, slowB] = [new HeldBody(), new HeldBody()];
      const pendingA = a.upload(slowA);
      slowA.write(start);
      await slowA.pulled;
      // B arrives later, so A (the same bytes over a longer time) is the slower of the two.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pendingB = b.upload(slowB);
      slowB.write(start);
      await slowB.pulled;
      await new Promise((resolve) => setTimeout(resolve, 300)); // both past their grace
      expect((await c.upload(worker('c1'))).statusCode).toBe(200);
      const yielded = await pendingA;
      expect(yielded.statusCode, yielded.body).toBe(408);
      expect(yielded.json().detail).toMatch(/^The upload arrived at \d+ bytes\/s on average while other deploys waited for its slot/);
      // B, the faster of the two, kept its slot and is read to its end (not an artifact: 400, not 408).
      slowB.end();
      expect((await pendingB).statusCode).toBe(400);
      slowA.destroy();
    } finally {
      await limited.close();
    }
  });

  it('answers 408 to an upload that arrives slower than the minimum rate, and frees its slot at once', async () => {
    const limited = await platformApp({ uploadLimits: { ...DEFAULT_UPLOAD_LIMITS, perUser: 1, minBytesPerSecond: 1_000_000, graceMs: 500 } });
    try {
      const { upload } = await siteOwner(limited);
      const trickle = new HeldBody();
      const started = performance.now();
      const slow = upload(trickle);
      trickle.write(worker('slow').subarray(0, 10)); // the start of a valid artifact, then nothing
      const answered = await slow;
      expect(answered.statusCode, answered.body).toBe(408);
      expect(answered.headers.connection).toBe('close');
      expect(answered.json().detail).toMatch(/^The upload arrived at \d+ bytes\/s on average, slower than the minimum of 1000000; retry on a faster connection\.$/);
      expect(performance.now() - started).toBeLessThan(5_000);
      // The slot is free again: the same user's next upload is read (perUser 1).
      expect((await upload(worker('fast'))).statusCode).toBe(200);
      trickle.destroy();
    } finally {
      await limited.close();
    }
  });

  it('answers 408 to an upload that takes longer than its deadline, however steadily it arrives', async () => {
    const limited = await platformApp({ uploadLimits: { ...DEFAULT_UPLOAD_LIMITS, timeoutMs: 1_000, minBytesPerSecond: 1, graceMs: 0 } });
    try {
      const { upload } = await siteOwner(limited);
      const steady = new HeldBody();
      const pending = upload(steady);
      // Incompressible, so its bytes arrive one by one: 16 every 50 ms, steadily but for longer than the deadline.
      const artifact = artifactFromFiles({ 'worker.js': 'export default {};', 'assets/noise': randomBytes(8 * 1024) });
      let at = 0;
      const drip = setInterval(() => {
        steady.write(artifact.subarray(at, at + 16));
        at += 16;
      }, 50);
      const answered = await pending.finally(() => clearInterval(drip));
      expect(answered.statusCode, answered.body).toBe(408);
      expect(answered.json().detail).toBe('The upload took longer than 1 s; send it faster, or a smaller artifact.');
      steady.destroy();
    } finally {
      await limited.close();
    }
  });
});

describe('the project quota on unpacked builds', () => {
  it('refuses a deploy or rollback that would take the project’s active builds past it (409, 413 for a build larger than it), naming the figures and storing nothing', async () => {
    const quota = 100_000;
    const limited = await platformApp({ projectUnpackedQuota: quota });
    try {
      const owner = await limited.createUser();
      const id = await limited.createProject(owner, { namespace: true });
      const as = { authorization: `Bearer ${await limited.tokenFor(owner, ['projects:read', 'apps:write', 'deploys:write'])}` };
      const call = (method: 'GET' | 'POST', url: string, payload?: Uint8Array | object) =>
        limited.app.inject({
          method,
          url: `/v1/projects/${id}${url}`,
          headers: { ...as, ...(payload instanceof Uint8Array ? { 'content-type': 'application/octet-stream' } : {}) },
          ...(payload ? { payload } : {}),
        });
      for (const name of ['a', 'b', 'c']) expect((await call('POST', '/apps', { name })).statusCode).toBe(201);
      const WORKER = 'export default { fetch: () => new Response("x") };';
      const sized = (assetBytes: number, tag: string) => artifactFromFiles({ 'worker.js': WORKER, [`assets/${tag}`]: 'y'.repeat(assetBytes) });

      const first = await call('POST', '/apps/a/deployments', sized(60_000, 'one'));
      expect(first.statusCode, first.body).toBe(200);
      const used = WORKER.length + 60_000;
      const view = await call('GET', '');
      expect(view.json().project).toMatchObject({ usage: { active_builds_unpacked_bytes: used }, quotas: { active_builds_unpacked_bytes: quota } });

      const over = await call('POST', '/apps/b/deployments', sized(50_000, 'two'));
      expect(over.statusCode, over.body).toBe(409);
      expect(over.json().detail).toBe(
        `Project ${id}'s other apps' active builds unpack to ${used} bytes and this build to at least ${WORKER.length + 50_000} bytes: together more than the project's quota of ${quota} bytes of unpacked builds. Delete apps, or deploy smaller builds to them, to make room.`,
      );
      const alone = await call('POST', '/apps/c/deployments', sized(150_000, 'three'));
      expect(alone.statusCode, alone.body).toBe(413);
      expect(alone.json().detail).toMatch(/^This build unpacks to at least \d+ bytes, more than project .*'s quota of 100000 bytes of unpacked builds\.$/);
      for (const app of ['b', 'c']) {
        expect((await call('GET', `/apps/${app}/builds`)).json()).toEqual({ builds: [] });
        const left: string[] = [];
        for await (const item of listAll(limited.artifacts, appArtifactPrefix(id, app))) left.push(item.key);
        expect(left).toEqual([]);
      }

      // The app's own active build does not count against its next one: a deploy replaces it.
      const bigger = await call('POST', '/apps/a/deployments', sized(90_000, 'bigger'));
      expect(bigger.statusCode, bigger.body).toBe(200);
      // Rolled back to its smaller build, `a` leaves room for `b`; rolling `a` forward again no longer fits.
      expect((await call('POST', '/apps/a/rollbacks', { build_id: first.json().build_id })).statusCode).toBe(200);
      expect((await call('POST', '/apps/b/deployments', sized(35_000, 'b'))).statusCode).toBe(200);
      const forward = await call('POST', '/apps/a/rollbacks', { build_id: bigger.json().build_id });
      expect(forward.statusCode, forward.body).toBe(409);
      expect(forward.json().detail).toContain(`other apps' active builds unpack to ${WORKER.length + 35_000} bytes and this build to ${WORKER.length + 90_000} bytes`);
    } finally {
      await limited.close();
    }
  });
});
