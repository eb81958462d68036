import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import type { DnsRecord } from '../../src/apis/v1alpha1/dns-record.ts';
import { RECONCILE_REQUEST_ANNOTATION, RUNTIME_APP_FINALIZER, type RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { createInformer, objectClient, RESOURCE_QUOTAS, type KubeObject } from '../../src/kube/index.ts';
import { listAll } from '../../src/object-store/list-all.ts';
import { appArtifactPrefix } from '../../src/platform/artifact-keys.ts';
import { APP_HOSTNAMES, BUILDS, DNS_RECORDS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';
import { MAX_APPS_PER_PROJECT } from '../../src/platform/apps.ts';

let platform: PlatformApp;
let owner: string;
let project: string;
let token: string;
/** While true, the controller's deletes of stored artifacts fail, as an object store outage would make them. */
let failArtifactDeletes = false;
/** While set, the controller's deletes of stored artifacts wait for it: the outage ending at a moment the test picks. */
let holdArtifactDeletes: Promise<void> | undefined;
/** How long a DELETE waits for the app to be gone: the API's default, which the outage below outlasts. */
const DELETE_BOUND_MS = 10_000;

beforeAll(async () => {
  platform = await platformApp({
    // The RuntimeApp controller runs here: a deleted app's artifacts are its to delete, through this store.
    appDeleteAnswerWithinMs: DELETE_BOUND_MS,
    runtimeAppArtifacts: (real) =>
      new Proxy(real, {
        get(target, property) {
          if (property === 'delete' && failArtifactDeletes) return () => Promise.reject(new Error('object store unreachable (injected)'));
          if (property === 'delete' && holdArtifactDeletes) {
            const held = holdArtifactDeletes;
            return (key: string) => held.then(() => real.delete(key));
          }
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
  });
  owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'deploys:write', 'env:write']);
});
afterAll(() => platform.close());

const headers = () => ({ authorization: `Bearer ${token}` });
const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: headers(), ...(payload ? { payload } : {}) });

/**
 * Resolves once the RuntimeApp controller has put its finalizer on the app (its first pass): only from then
 * on is a deletion held for the artifacts. This file's first tests make 100 apps, which it works through.
 */
async function guarded(appId: string): Promise<void> {
  await vi.waitFor(async () => expect((await apps().get(project, appId))?.metadata?.finalizers).toContain(RUNTIME_APP_FINALIZER), { timeout: 30_000, interval: 50 });
}

async function storedKeys(appId: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of listAll(platform.artifacts, appArtifactPrefix(project, appId))) keys.push(item.key);
  return keys;
}

describe('apps', () => {
  it('answers an administrator 404 for a namespace that is no project, writing nothing there', async () => {
    const admin = await platform.createUser({ admin: true });
    const adminToken = await platform.tokenFor(admin, ['admin', 'apps:write', 'domain:write']);
    const asAdmin = { authorization: `Bearer ${adminToken}` };
    for (const namespace of ['default', 'kube-system']) {
      const created = await platform.app.inject({ method: 'POST', url: `/v1/projects/${namespace}/apps`, headers: asAdmin, payload: { name: 'probe' } });
      expect(created.statusCode).toBe(404);
      expect(created.json().detail).toBe(`The project "${namespace}" does not exist.`);
      expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${namespace}/apps`, headers: asAdmin })).statusCode).toBe(404);
      expect((await apps().list(namespace)).items).toEqual([]);
    }
    // The administrator's own reach into real projects is unchanged.
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps`, headers: asAdmin })).statusCode).toBe(200);
  });

  it('lists none for a project without apps', async () => {
    const empty = await platform.createProject(owner);
    const res = await platform.app.inject({ method: 'GET', url: `/v1/projects/${empty}/apps`, headers: headers() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({ apps: [], next: null });
  });

  it('registers an app without deploying it, readable and listed at once', async () => {
    const created = await call('POST', '/apps', { name: 'web' });
    expect(created.statusCode).toBe(201);
    expect(created.json().app).toStrictEqual({
      app_id: 'web',
      name: 'web',
      active_build_id: '',
      builds: [],
      hosts: [`web.${project}.apps.localhost`],
      ready: false,
      https: { redirect_http: false },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const cr = await apps().get(project, 'web');
    expect(cr?.spec).toStrictEqual({ displayName: 'web' });

    expect((await call('GET', '/apps/web')).json().app).toMatchObject({ app_id: 'web', name: 'web' });
    const listed = (await call('GET', '/apps')).json().apps as { app_id: string }[];
    expect(listed.map((a) => a.app_id)).toContain('web');
  });

  it('derives an id from a name that is not a DNS label, and refuses a second app of the same name', async () => {
    const created = await call('POST', '/apps', { name: 'My Shop' });
    expect(created.statusCode).toBe(201);
    const { app_id: appId, name } = created.json().app;
    expect(appId).toMatch(/^my-shop-[0-9a-f]{6}$/);
    expect(name).toBe('My Shop');

    const again = await call('POST', '/apps', { name: 'My Shop' });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toContain(appId);
  });

  it.each([[{}], [{ name: '' }], [{ name: 'a\u0007b' }], [{ name: 'x', extra: 1 }], [{ name: 'x'.repeat(129) }]])('refuses the body %j', async (body) => {
    expect((await call('POST', '/apps', body)).statusCode).toBe(400);
  });

  it('refuses an app whose default host another app of the project serves through its deploy host names (409)', async () => {
    const holder = (await call('POST', '/apps', { name: 'holder' })).json().app.app_id as string;
    const host = `storefront.${project}.apps.localhost`;
    // A deploy answers once the app's cache shows what it wrote.
    const deployed = await platform.app.inject({
      method: 'POST',
      url: `/v1/projects/${project}/apps/${holder}/deployments?hostnames=${host}`,
      headers: { ...headers(), 'content-type': 'application/octet-stream' },
      payload: artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("held"); } };' }),
    });
    expect(deployed.statusCode, deployed.body).toBe(200);
    const res = await call('POST', '/apps', { name: 'storefront' });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe(`${host}, the default host of an app named "storefront", is bound to app holder; choose another name, or deploy holder without it first.`);
    expect(await apps().get(project, 'storefront')).toBeUndefined();
  });

  it(`lets a project have at most ${MAX_APPS_PER_PROJECT} apps (409 past that)`, async () => {
    const crowded = await platform.createProject(owner, { namespace: true });
    await Promise.all(Array.from({ length: MAX_APPS_PER_PROJECT }, (_, i) => apps().create({ metadata: { name: `app-${i}`, namespace: crowded }, spec: { displayName: `app-${i}` } })));
    await vi.waitFor(async () => {
      const listed = (await platform.app.inject({ method: 'GET', url: `/v1/projects/${crowded}/apps`, headers: headers() })).json().apps;
      expect(listed).toHaveLength(MAX_APPS_PER_PROJECT);
    });
    // Page by page, each page's `next` the following page's cursor, until it is null: every app once, by id.
    const paged: string[] = [];
    let next: string | null = null;
    do {
      const page = await platform.app.inject({ method: 'GET', url: `/v1/projects/${crowded}/apps?limit=7${next ? `&cursor=${next}` : ''}`, headers: headers() });
      expect(page.statusCode, page.body).toBe(200);
      const body = page.json() as { apps: { app_id: string }[]; next: string | null };
      expect(body.apps.length).toBeLessThanOrEqual(7);
      paged.push(...body.apps.map((a) => a.app_id));
      next = body.next;
    } while (next);
    expect(paged).toEqual(Array.from({ length: MAX_APPS_PER_PROJECT }, (_, i) => `app-${i}`).sort());
    const refused = await Promise.all(['limit=0', 'limit=1001', 'cursor=a+b'].map((q) => platform.app.inject({ method: 'GET', url: `/v1/projects/${crowded}/apps?${q}`, headers: headers() })));
    expect(refused.map((r) => r.statusCode)).toEqual([400, 400, 400]);
    const res = await platform.app.inject({ method: 'POST', url: `/v1/projects/${crowded}/apps`, headers: headers(), payload: { name: 'one-more' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe(`Project ${crowded} has ${MAX_APPS_PER_PROJECT} apps, the most a project may have; delete one first.`);
  });

  it("answers 409 naming the full count when the namespace's quota refuses the write, apps made with kubectl counted", { timeout: 60_000 }, async () => {
    const quoted = await platform.createProject(owner, { namespace: true });
    // A quota below the API's own limit, as an administrator may set one (the operator's project quota is refused the same way).
    type Quota = KubeObject & { spec: { hard: Record<string, string> }; status?: { used?: Record<string, string> } };
    const quotas = objectClient<Quota>(platform.conn, RESOURCE_QUOTAS);
    await quotas.create({ metadata: { name: 'team-quota', namespace: quoted }, spec: { hard: { 'count/runtimeapps.cloudwright.dev': '2' } } });
    // The control plane's quota controller counts it (it learns of custom resources up to 30 s after they are defined).
    await vi.waitFor(async () => expect((await quotas.get(quoted, 'team-quota'))?.status?.used?.['count/runtimeapps.cloudwright.dev']).toBe('0'), { timeout: 45_000, interval: 100 });
    for (const name of ['one', 'two']) await apps().create({ metadata: { name, namespace: quoted }, spec: { displayName: name } });
    const res = await platform.app.inject({ method: 'POST', url: `/v1/projects/${quoted}/apps`, headers: headers(), payload: { name: 'three' } });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail).toBe('The project has 2 apps of the 2 its quota team-quota allows; delete some first.');
    expect(await apps().get(quoted, 'three')).toBeUndefined();
  });

  it('answers 409 while the project has no namespace yet', async () => {
    const bare = await platform.createProject(owner);
    const res = await platform.app.inject({ method: 'POST', url: `/v1/projects/${bare}/apps`, headers: headers(), payload: { name: 'early' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('not set up yet');
  });

  it('answers 404 for an app that does not exist', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await call(method, '/apps/nope');
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('deleting an app', () => {
  it('removes what it owns and reports it, including DNS left at the owner’s provider', async () => {
    const appId = (await call('POST', '/apps', { name: 'doomed' })).json().app.app_id as string;
    await guarded(appId);
    const deploy = (body: Uint8Array, query = '') =>
      platform.app.inject({
        method: 'POST',
        url: `/v1/projects/${project}/apps/${appId}/deployments${query}`,
        headers: { ...headers(), 'content-type': 'application/octet-stream' },
        payload: body,
      });
    expect((await deploy(artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("1"); } };' }))).statusCode).toBe(200);
    // A domain no other test file claims: the control plane is shared, and one domain is one project's.
    await platform.managedDomain(project, 'apps-delete.example');
    expect((await deploy(artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("2"); } };' }), '?hostnames=doomed.apps-delete.example')).statusCode).toBe(200);
    for (const key of ['A', 'B']) expect((await call('PUT', `/apps/${appId}/environment/${key}`, { value: key })).statusCode).toBe(200);

    // A custom domain attached in external mode (its records published by the owner) and one in managed mode.
    const hostnames = objectClient<AppHostname>(platform.conn, APP_HOSTNAMES);
    await hostnames.create({ metadata: { name: 'www.custom.example', namespace: project }, spec: { appRef: { name: appId }, hostname: 'www.custom.example' } });
    await hostnames.patchStatus(project, 'www.custom.example', { status: { dnsRecords: [{ recordType: 'CNAME', name: 'www.custom.example', value: `${appId}.${project}.apps.localhost` }] } });
    await hostnames.create({
      metadata: { name: 'app.managed.example', namespace: project },
      spec: { appRef: { name: appId }, hostname: 'app.managed.example', dnsMode: 'managed_project_domain' },
    });
    const records = objectClient<DnsRecord>(platform.conn, DNS_RECORDS);
    await records.create({
      metadata: { name: 'app-managed', namespace: project },
      spec: { domainRef: { name: 'managed.example' }, name: 'app', type: 'CNAME', values: ['x.example'], owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: appId } },
    });
    await records.create({ metadata: { name: 'users-own', namespace: project }, spec: { domainRef: { name: 'managed.example' }, name: 'www', type: 'CNAME', values: ['x.example'] } });
    expect(await storedKeys(appId)).toHaveLength(2);

    const res = await call('DELETE', `/apps/${appId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toStrictEqual({
      app_id: appId,
      status: 'deleted',
      deleted: {
        routing_pointer: true,
        runtime_resources: 5, // the app, 2 builds, 2 hostname bindings
        build_artifacts: 2,
        environment_keys: 2,
        dns_records: 1,
        hostnames: ['app.managed.example', 'doomed.apps-delete.example', 'www.custom.example'],
      },
      dns_cleanup_pending: [
        { hostname: 'doomed.apps-delete.example', records: [] },
        { hostname: 'www.custom.example', records: [{ record_type: 'CNAME', name: 'www.custom.example', value: `${appId}.${project}.apps.localhost` }] },
      ],
    });

    // True at once: the world holds none of it.
    expect(await apps().get(project, appId)).toBeUndefined();
    expect((await objectClient<Build>(platform.conn, BUILDS).list(project)).items.filter((b) => b.spec.app === appId)).toEqual([]);
    expect((await hostnames.list(project)).items).toEqual([]);
    expect((await records.list(project)).items.map((r) => r.metadata?.name)).toEqual(['users-own']);
    expect(await storedKeys(appId)).toEqual([]);
    expect((await call('GET', `/apps/${appId}`)).statusCode).toBe(404);
    expect((await call('GET', '/apps')).json().apps.map((a: { app_id: string }) => a.app_id)).not.toContain(appId);
    expect((await call('DELETE', `/apps/${appId}`)).statusCode).toBe(404);
    await records.delete(project, 'users-own');
  });

  it('answers 202 deleting while the artifacts cannot be deleted, and the repeated DELETE retries at once and reports every host name and the DNS left once gone', { timeout: 60_000 }, async () => {
    const appId = (await call('POST', '/apps', { name: 'halfway' })).json().app.app_id as string;
    await guarded(appId);
    await platform.managedDomain(project, 'halfway.example');
    const deployed = await platform.app.inject({
      method: 'POST',
      url: `/v1/projects/${project}/apps/${appId}/deployments?hostnames=www.halfway.example`,
      headers: { ...headers(), 'content-type': 'application/octet-stream' },
      payload: artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("1"); } };' }),
    });
    expect(deployed.statusCode, deployed.body).toBe(200);
    const hostnames = objectClient<AppHostname>(platform.conn, APP_HOSTNAMES);
    await hostnames.create({ metadata: { name: 'shop.halfway.test', namespace: project }, spec: { appRef: { name: appId }, hostname: 'shop.halfway.test' } });
    const cname = { recordType: 'CNAME', name: 'shop.halfway.test', value: `${appId}.${project}.apps.localhost` };
    await hostnames.patchStatus(project, 'shop.halfway.test', { status: { dnsRecords: [cname] } });

    failArtifactDeletes = true;
    let endOutage = () => {};
    try {
      const pending = await call('DELETE', `/apps/${appId}`);
      expect(pending.statusCode, pending.body).toBe(202);
      // What this call did is reported; the app and its artifacts are not gone, so they are not counted.
      expect(pending.json()).toMatchObject({
        status: 'deleting',
        deleted: { routing_pointer: true, runtime_resources: 2, build_artifacts: 0, hostnames: ['shop.halfway.test', 'www.halfway.example'] },
      });
      // Unbound and no longer served; held by the finalizer with its artifact.
      const held = await apps().get(project, appId);
      expect(held?.metadata?.deletionTimestamp).toBeDefined();
      expect(held?.spec.activeBuildId).toBeUndefined();
      expect(held?.spec.hostnames).toBeUndefined();
      expect(await storedKeys(appId)).toHaveLength(1);
      expect((await hostnames.list(project)).items.filter((h) => h.spec.appRef.name === appId)).toEqual([]);
      expect((await call('GET', `/apps/${appId}`)).statusCode).toBe(404);
      // The outage ends once the repeated DELETE below asked for a retry: the controller's own retry, due any time,
      // finished the deletion before that call now and then (it then answered 404), so its deletes wait till then.
      holdArtifactDeletes = new Promise((resolve) => (endOutage = resolve));
    } finally {
      failArtifactDeletes = false;
    }

    // Repeated, it asks the controller to retry now (the annotation, seen by a watch before the app goes): its
    // back-off, grown through the outage to about the bound, is not waited out, and the call answers once it is gone.
    const watched = createInformer<RuntimeApp>(platform.conn, RUNTIME_APPS, { namespace: project });
    const requested: string[] = [];
    watched.onChange((app) => {
      const at = app.metadata?.name === appId ? app.metadata.annotations?.[RECONCILE_REQUEST_ANNOTATION] : undefined;
      if (at !== undefined) requested.push(at);
    });
    watched.start();
    await watched.waitForSync(AbortSignal.timeout(10_000));
    const started = Date.now();
    const repeated = call('DELETE', `/apps/${appId}`);
    try {
      await vi.waitFor(() => expect(requested.length).toBeGreaterThan(0), { timeout: DELETE_BOUND_MS / 2, interval: 20 });
    } finally {
      holdArtifactDeletes = undefined;
      endOutage();
    }
    const res = await repeated;
    watched.stop();
    expect(res.statusCode, res.body).toBe(200);
    expect(Date.now() - started).toBeLessThan(DELETE_BOUND_MS / 2);
    // The artifact was still there when this call began: it is counted.
    expect(res.json().deleted.build_artifacts).toBe(1);
    expect(res.json()).toMatchObject({
      status: 'deleted',
      deleted: { routing_pointer: false, runtime_resources: 1, hostnames: ['shop.halfway.test', 'www.halfway.example'] },
      dns_cleanup_pending: [
        { hostname: 'shop.halfway.test', records: [{ record_type: 'CNAME', name: cname.name, value: cname.value }] },
        { hostname: 'www.halfway.example', records: [] },
      ],
    });
    expect(await storedKeys(appId)).toEqual([]);
  });

  it('reports an app that was never deployed', async () => {
    const appId = (await call('POST', '/apps', { name: 'idle' })).json().app.app_id as string;
    const res = await call('DELETE', `/apps/${appId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({
      app_id: appId,
      status: 'deleted',
      deleted: { routing_pointer: false, runtime_resources: 1, build_artifacts: 0, environment_keys: 0, dns_records: 0, hostnames: [] },
      dns_cleanup_pending: [],
    });
    // The id is free again.
    expect((await call('POST', '/apps', { name: 'idle' })).statusCode).toBe(201);
  });
});
