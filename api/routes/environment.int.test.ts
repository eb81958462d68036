import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { DATABASES, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let otherProject: string;
let token: string;
/** May set variables and read databases, not write them. */
let envOnly: string;

beforeAll(async () => {
  platform = await platformApp();
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  // Another tenant's project, with a database of its own: never linkable from this one.
  otherProject = await platform.createProject(await platform.createUser(), { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:write']);
  envOnly = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:read']);
  const databases = objectClient<Database>(platform.conn, DATABASES);
  await databases.create({ metadata: { name: 'orders', namespace: project }, spec: { displayName: 'orders' } });
  await databases.create({ metadata: { name: 'theirs', namespace: otherProject }, spec: { displayName: 'theirs' } });
});
afterAll(() => platform.close());

const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

async function createApp(name: string): Promise<string> {
  const res = await call('POST', '/apps', { name });
  expect(res.statusCode).toBe(201);
  return res.json().app.app_id as string;
}

describe('environment', () => {
  it('sets, reads and removes plain variables', async () => {
    const appId = await createApp('env-basic');
    expect((await call('GET', `/apps/${appId}/environment`)).json()).toStrictEqual({ environment: {} });

    const put = await call('PUT', `/apps/${appId}/environment/GREETING`, { value: 'hello', secret: false });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toStrictEqual({ variable: { key: 'GREETING', value: 'hello', secret: false } });
    expect((await call('PUT', `/apps/${appId}/environment/_EMPTY`, { value: '' })).statusCode).toBe(200); // secret defaults to false
    expect((await call('PUT', `/apps/${appId}/environment/GREETING`, { value: 'hi' })).statusCode).toBe(200); // replaces

    expect((await call('GET', `/apps/${appId}/environment`)).json()).toStrictEqual({
      environment: { GREETING: { value: 'hi', secret: false }, _EMPTY: { value: '', secret: false } },
    });
    expect((await apps().get(project, appId))?.spec.environment).toStrictEqual({ GREETING: 'hi', _EMPTY: '' });

    expect((await call('DELETE', `/apps/${appId}/environment/GREETING`)).statusCode).toBe(204);
    const again = await call('DELETE', `/apps/${appId}/environment/GREETING`);
    expect(again.statusCode).toBe(404);
    expect(again.json().detail).toContain('GREETING');
    expect((await call('GET', `/apps/${appId}/environment`)).json()).toStrictEqual({ environment: { _EMPTY: { value: '', secret: false } } });
  });

  it('refuses secret values with the spec’s 400, storing nothing', async () => {
    const appId = await createApp('env-secret');
    const res = await call('PUT', `/apps/${appId}/environment/TOKEN`, { value: 's3cr3t', secret: true });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ title: 'Bad Request', status: 400 });
    expect(body.detail).toMatch(/secret app environment values are not enabled/i);
    expect(body.detail).toMatch(/only plain values are stored/);
    expect(body.detail).not.toContain('s3cr3t');
    expect((await apps().get(project, appId))?.spec.environment).toBeUndefined();
  });

  it.each([
    ['1BAD', { value: 'x' }],
    ['BAD-KEY', { value: 'x' }],
    ['K'.repeat(129), { value: 'x' }],
    ['OK', { value: 'x'.repeat(4097) }],
    ['OK', { value: 1 }],
    ['OK', {}],
    ['OK', { value: 'x', secret: 'no' }],
    ['OK', { value: 'x', other: true }],
  ])('refuses key %s with body %j', async (key, body) => {
    const appId = await createApp(`env-invalid-${Math.random().toString(36).slice(2, 8)}`);
    expect((await call('PUT', `/apps/${appId}/environment/${key}`, body)).statusCode).toBe(400);
  });

  it('refuses the reserved name ASSETS (400), storing nothing', async () => {
    const appId = await createApp('env-assets');
    const res = await call('PUT', `/apps/${appId}/environment/ASSETS`, { value: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe("ASSETS is reserved: it is the binding of an app's static assets; choose another name.");
    expect((await apps().get(project, appId))?.spec.environment).toBeUndefined();
  });

  it('bounds the whole environment at 64 KiB of UTF-8 (409), so it always fits the stored app', async () => {
    const appId = await createApp('env-bytes');
    const fourByteValue = '😀'.repeat(1024); // 1024 characters (UTF-16 pairs count as two: 2048), 4096 bytes
    for (let i = 0; i < 15; i++) expect((await call('PUT', `/apps/${appId}/environment/BIG_${i}`, { value: fourByteValue })).statusCode).toBe(200);
    const over = await call('PUT', `/apps/${appId}/environment/BIG_15`, { value: fourByteValue });
    expect(over.statusCode).toBe(409);
    expect(over.json().detail).toMatch(/environment would take \d+ bytes, more than the 65536 an app may have/);
    expect(Object.keys((await apps().get(project, appId))?.spec.environment ?? {})).toHaveLength(15);
    expect((await call('PUT', `/apps/${appId}/environment/BIG_0`, { value: 'small' })).statusCode).toBe(200);
    expect((await call('PUT', `/apps/${appId}/environment/BIG_15`, { value: fourByteValue })).statusCode).toBe(200);

    // Written past the API (kubectl, a GitOps tool), the RuntimeApp is held to the same bound by its CRD.
    const huge = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`HUGE_${i}`, 'x'.repeat(4096)]));
    await expect(apps().patch(project, appId, { spec: { environment: huge } })).rejects.toThrow(/the environment may take at most 65536 bytes/);
    expect(Object.keys((await call('GET', `/apps/${appId}/environment`)).json().environment)).toHaveLength(16);
  });

  it('answers 404 for an app that does not exist', async () => {
    expect((await call('GET', '/apps/nope/environment')).statusCode).toBe(404);
    expect((await call('PUT', '/apps/nope/environment/A', { value: 'x' })).statusCode).toBe(404);
    expect((await call('DELETE', '/apps/nope/environment/A')).statusCode).toBe(404);
  });

  it('keeps every one of concurrent writes, and at most 128 variables', async () => {
    const appId = await createApp('env-many');
    const keys = Array.from({ length: 12 }, (_, i) => `KEY_${i}`);
    const results = await Promise.all(keys.map((key) => call('PUT', `/apps/${appId}/environment/${key}`, { value: key.toLowerCase() })));
    expect(results.map((r) => r.statusCode)).toEqual(keys.map(() => 200));
    expect(Object.keys((await call('GET', `/apps/${appId}/environment`)).json().environment).sort()).toEqual([...keys].sort());

    const full = Object.fromEntries(Array.from({ length: 128 }, (_, i) => [`V${i}`, 'x']));
    // A merge patch (the RuntimeApp controller writes the app's status meanwhile): the KEY_ variables go, the 128 come.
    await apps().patch(project, appId, { spec: { environment: { ...Object.fromEntries(keys.map((key) => [key, null])), ...full } } });
    const over = await call('PUT', `/apps/${appId}/environment/ONE_MORE`, { value: 'x' });
    expect(over.statusCode).toBe(409);
    expect(over.json().detail).toContain('128');
    expect((await call('PUT', `/apps/${appId}/environment/V0`, { value: 'changed' })).statusCode).toBe(200);
  });

  it('links a variable to a database of the project: shown as linked, never with a value; replaces and is replaced by a plain value', async () => {
    const appId = await createApp('env-linked');
    // The API's cache sees the database once it is listed.
    await vi.waitFor(async () => expect((await call('PUT', `/apps/${appId}/environment/DB_TOKEN`, { database: 'orders', access: 'full' })).statusCode).toBe(200));
    expect((await call('PUT', `/apps/${appId}/environment/DB_READER`, { database: 'orders' })).json()).toStrictEqual({
      variable: { key: 'DB_READER', database: 'orders', access: 'read-only', secret: true },
    });
    expect((await call('PUT', `/apps/${appId}/environment/PLAIN`, { value: 'p' })).statusCode).toBe(200);
    // env:write alone does not hand an app a database's token: linking takes what the token allows.
    const asEnvOnly = (key: string, payload: object) =>
      platform.app.inject({ method: 'PUT', url: `/v1/projects/${project}/apps/${appId}/environment/${key}`, headers: { authorization: `Bearer ${envOnly}` }, payload });
    const refused = await asEnvOnly('DB_WRITER', { database: 'orders', access: 'full' });
    expect([refused.statusCode, refused.json().detail]).toEqual([403, 'This token lacks the scope databases:write.']);
    expect((await asEnvOnly('DB_READER', { database: 'orders' })).statusCode).toBe(200);
    const shown = await call('GET', `/apps/${appId}/environment`);
    expect(shown.json()).toStrictEqual({
      environment: {
        DB_READER: { database: 'orders', access: 'read-only', secret: true },
        DB_TOKEN: { database: 'orders', access: 'full', secret: true },
        PLAIN: { value: 'p', secret: false },
      },
    });
    expect((await apps().get(project, appId))?.spec).toMatchObject({
      environment: { PLAIN: 'p' },
      databaseEnvironment: { DB_TOKEN: { database: 'orders', access: 'full' }, DB_READER: { database: 'orders', access: 'read-only' } },
    });

    // A plain value of a linked name replaces the link, and a link replaces a plain value: one map each.
    expect((await call('PUT', `/apps/${appId}/environment/DB_READER`, { value: 'plain now' })).statusCode).toBe(200);
    expect((await call('PUT', `/apps/${appId}/environment/PLAIN`, { database: 'orders' })).statusCode).toBe(200);
    expect((await apps().get(project, appId))?.spec).toMatchObject({
      environment: { DB_READER: 'plain now' },
      databaseEnvironment: { DB_TOKEN: { database: 'orders', access: 'full' }, PLAIN: { database: 'orders', access: 'read-only' } },
    });
    expect((await apps().get(project, appId))?.spec.environment).not.toHaveProperty('PLAIN');

    expect((await call('DELETE', `/apps/${appId}/environment/DB_TOKEN`)).statusCode).toBe(204);
    expect((await call('DELETE', `/apps/${appId}/environment/PLAIN`)).statusCode).toBe(204);
    expect((await call('DELETE', `/apps/${appId}/environment/PLAIN`)).statusCode).toBe(404);
    expect((await apps().get(project, appId))?.spec.databaseEnvironment).toBeUndefined();
  });

  it("refuses a link to a database the project does not have (another project's among them), and malformed bodies", async () => {
    const appId = await createApp('env-link-bad');
    await vi.waitFor(async () => expect((await call('PUT', `/apps/${appId}/environment/OK`, { database: 'orders' })).statusCode).toBe(200));
    for (const [body, status, detail] of [
      [{ database: 'theirs' }, 404, new RegExp(`no database theirs in project ${project}`, 'i')],
      [{ database: 'nope' }, 404, /no database nope/i],
      [{ database: 'orders', value: 'x' }, 400, /either "value".*or "database"/],
      [{}, 400, /either "value".*or "database"/],
      [{ database: 'orders', secret: true }, 400, /secret app environment values are not enabled/i],
      [{ database: 'orders', secret: false }, 400, /either "value" \(a plain value, with "secret" if any\)/],
      [{ value: 'x', access: 'full' }, 400, /or "database" \(a link to a database’s token, with "access" if any\)/],
      [{ database: 'orders', access: 'admin' }, 400, /access/],
      [{ database: 'Orders!' }, 400, /database/],
    ] as const) {
      const res = await call('PUT', `/apps/${appId}/environment/X`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().detail, JSON.stringify(body)).toMatch(detail);
    }
    expect((await call('PUT', `/apps/${appId}/environment/ASSETS`, { database: 'orders' })).statusCode).toBe(400);
    expect(Object.keys((await apps().get(project, appId))?.spec.databaseEnvironment ?? {})).toEqual(['OK']);
  });

  it('keeps a name out of both maps, also for kubectl (the CRD refuses it)', async () => {
    await expect(
      apps().create({
        metadata: { name: 'both-maps', namespace: project },
        spec: { displayName: 'both', environment: { DB: 'x' }, databaseEnvironment: { DB: { database: 'orders' } } },
      }),
    ).rejects.toThrow(/in environment or in databaseEnvironment, not both/);
  });
});
