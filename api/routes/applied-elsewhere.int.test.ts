// Objects a GitOps tool applies (server-side apply, re-asserted at every sync) keep that tool as the writer of
// the fields it applies: the API refuses to change or delete them (409 saying which tool and field), since the
// next sync would undo it, and still writes what the tool leaves out. A one-off `kubectl apply` does not count.
// Databases: e2e/databases.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { RUNTIME_APPS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:write']);
});
afterAll(() => platform.close());

const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const call = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

/** An app applied as `manager` applies it, once the API sees it. */
async function appliedApp(name: string, manager: string): Promise<void> {
  await apps().apply({ metadata: { name, namespace: project }, spec: { displayName: name, environment: { GREETING: 'from git' } } }, { fieldManager: manager, force: true });
  await expect.poll(async () => (await call('GET', `/apps/${name}`)).statusCode).toBe(200);
}

describe('fields a GitOps tool applies', () => {
  it('refuses changing or removing them, and deleting the app, with 409 naming the tool and field; writes what the tool leaves out', async () => {
    await appliedApp('from-git', 'kustomize-controller');

    const changed = await call('PUT', '/apps/from-git/environment/GREETING', { value: 'by hand' });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().detail).toBe(
      'RuntimeApp from-git: spec.environment.GREETING is applied by kustomize-controller (server-side apply, as Flux and Argo CD sync a repository), whose next sync would set it back. Change it in what kustomize-controller applies; if it no longer applies it, a kubectl edit takes it over.',
    );
    expect((await call('DELETE', '/apps/from-git/environment/GREETING')).statusCode).toBe(409);

    // What git leaves out is the API's to write, beside what git applies.
    expect((await call('PUT', '/apps/from-git/environment/EXTRA', { value: '1' })).statusCode).toBe(200);
    expect((await apps().get(project, 'from-git'))?.spec).toMatchObject({ displayName: 'from-git', environment: { GREETING: 'from git', EXTRA: '1' } });

    const deleted = await call('DELETE', '/apps/from-git');
    expect(deleted.statusCode).toBe(409);
    expect(deleted.json().detail).toContain('RuntimeApp from-git is applied by kustomize-controller');
    expect((await apps().get(project, 'from-git'))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('leaves an app applied once with kubectl to whoever writes next', async () => {
    await appliedApp('by-kubectl', 'kubectl');
    expect((await call('PUT', '/apps/by-kubectl/environment/GREETING', { value: 'by hand' })).statusCode).toBe(200);
    expect((await apps().get(project, 'by-kubectl'))?.spec.environment).toEqual({ GREETING: 'by hand' });
  });
});
