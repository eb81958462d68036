import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  otherProject = await platform.createProject(await platform.createUser(), { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:write']);
  envOnly = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:read']);
  const databases = objectClient<Database>(platform.conn, DATABASES);
  await databases.create({ metadata: { name: 'orders', namespace: project }, spec: { displayName: 'orders' } });
  await databases.create({ metadata: { name: 'theirs', namespace: otherProject }, spec: { displayName: 'theirs' } });
});
afterAll(() => platform.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

describe('database bindings', () => {
  it('binds a database as <name>_URL and <name>_TOKEN in the RuntimeApp spec, lists it without a token, and unbinds it', async () => {
    const created = await call('POST', '/apps', { name: 'bound' });
    const appId = created.json().app.app_id as string;
    // A plain value of a binding's name is replaced by the binding.
    expect((await call('PUT', `/apps/${appId}/environment/DB_URL`, { value: 'https://old.example' })).statusCode).toBe(200);

    const bound = await call('PUT', `/apps/${appId}/database-bindings/DB`, { database: 'orders', access: 'full' });
    expect(bound.statusCode, bound.body).toBe(200);
    expect(bound.json()).toStrictEqual({ binding: { name: 'DB', database: 'orders', access: 'full', variables: { url: 'DB_URL', token: 'DB_TOKEN' } } });
    const app = await objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS).get(project, appId);
    expect(app?.spec.environment).toBeUndefined();
    expect(app?.spec.databaseEnvironment).toStrictEqual({ DB_URL: { database: 'orders', provides: 'url' }, DB_TOKEN: { database: 'orders', access: 'full' } });

    expect((await call('GET', `/apps/${appId}/database-bindings`)).json()).toStrictEqual({ bindings: [bound.json().binding] });
    // Binding again as it is bound changes no spec (the generation; the resourceVersion also moves with the
    // RuntimeApp controller's status writes, which run beside this test).
    const generation = (await objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS).get(project, appId))?.metadata?.generation;
    expect((await call('PUT', `/apps/${appId}/database-bindings/DB`, { database: 'orders', access: 'full' })).statusCode).toBe(200);
    expect((await objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS).get(project, appId))?.metadata?.generation).toBe(generation);
    expect((await call('GET', `/apps/${appId}/environment`)).json()).toStrictEqual({
      environment: { DB_TOKEN: { database: 'orders', access: 'full', secret: true }, DB_URL: { database: 'orders', provides: 'url', secret: false } },
    });

    // Giving an app a database's token takes what the token allows: writing the database for a full one.
    const asEnvOnly = (path: string, payload: object) => platform.app.inject({ method: 'PUT', url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${envOnly}` }, payload });
    const refused = await asEnvOnly(`/apps/${appId}/database-bindings/WRITER`, { database: 'orders', access: 'full' });
    expect([refused.statusCode, refused.json().detail]).toEqual([403, 'This token lacks the scope databases:write.']);
    expect((await asEnvOnly(`/apps/${appId}/database-bindings/READER`, { database: 'orders' })).statusCode).toBe(200);
    expect((await call('DELETE', `/apps/${appId}/database-bindings/READER`)).statusCode).toBe(204);

    // Another project's database is not there, whatever its name.
    expect((await call('PUT', `/apps/${appId}/database-bindings/OTHER`, { database: 'theirs' })).statusCode).toBe(404);
    expect((await call('PUT', `/apps/${appId}/database-bindings/DB`, { database: 'orders', token: 'x' })).statusCode).toBe(400);

    // Linking the binding's URL variable as a token is a change (it stops being the URL), and breaks the binding.
    expect((await call('PUT', `/apps/${appId}/environment/DB_URL`, { database: 'orders' })).statusCode).toBe(200);
    expect((await call('GET', `/apps/${appId}/database-bindings`)).json()).toStrictEqual({ bindings: [] });
    expect((await call('DELETE', `/apps/${appId}/database-bindings/DB`)).statusCode).toBe(404);
    expect((await call('PUT', `/apps/${appId}/database-bindings/DB`, { database: 'orders', access: 'full' })).statusCode).toBe(200);

    expect((await call('DELETE', `/apps/${appId}/database-bindings/DB`)).statusCode).toBe(204);
    expect((await call('DELETE', `/apps/${appId}/database-bindings/DB`)).statusCode).toBe(404);
    expect((await call('GET', `/apps/${appId}/environment`)).json()).toStrictEqual({ environment: {} });
  });
});
