// Objects a GitOps tool applies (server-side apply, re-asserted at every sync) keep that tool as the writer of
// the fields it applies: the API refuses to change or delete them (409 saying which tool and field), since the
// next sync would undo it, and still writes what the tool leaves out. A one-off `kubectl apply` does not count.
// Databases: e2e/databases.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import type { RuntimeApp, RuntimeAppSpec } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient, type KubeObject } from '../../src/kube/index.ts';
import { listAll } from '../../src/object-store/list-all.ts';
import { appArtifactPrefix } from '../../src/platform/artifact-keys.ts';
import { BUILDS, PROJECTS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'env:write', 'databases:write', 'deploys:write']);
});
afterAll(() => platform.close());

const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
const builds = () => objectClient<Build>(platform.conn, BUILDS);
const call = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
const deploy = (app: string, text: string, query = '') =>
  platform.app.inject({
    method: 'POST',
    url: `/v1/projects/${project}/apps/${app}/deployments${query}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    payload: artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(text)}); } };` }),
  });

/** An app applied as `manager` applies it, once the API sees it. */
async function appliedApp(name: string, manager: string, spec: Partial<RuntimeAppSpec> = { environment: { GREETING: 'from git' } }): Promise<void> {
  await apps().apply({ metadata: { name, namespace: project }, spec: { displayName: name, ...spec } }, { fieldManager: manager, force: true });
  await expect.poll(async () => (await call('GET', `/apps/${name}`)).statusCode).toBe(200);
}

/** What the app has stored: its Builds and its artifacts' keys. */
async function stored(app: string): Promise<{ builds: string[]; artifacts: string[] }> {
  const artifacts: string[] = [];
  for await (const item of listAll(platform.artifacts, appArtifactPrefix(project, app))) artifacts.push(item.key);
  const recorded = (await builds().list(project)).items.filter((b) => b.spec.app === app).map((b) => b.spec.buildId);
  return { builds: recorded, artifacts };
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

  it("takes an environment git declares empty as the API's to fill and empty again", async () => {
    await appliedApp('empty-env', 'kustomize-controller', { environment: {} });
    expect((await call('PUT', '/apps/empty-env/environment/SET_BY_API', { value: '1' })).statusCode).toBe(200);
    expect((await call('DELETE', '/apps/empty-env/environment/SET_BY_API')).statusCode).toBe(204);
    expect((await apps().get(project, 'empty-env'))?.spec.environment ?? {}).toEqual({});
  });

  it('deploys beside a concurrency bound git applies, keeping it; refuses, storing nothing, a deploy that would change it or the build git pins', async () => {
    await appliedApp('bounded', 'kustomize-controller', { maxConcurrentRequests: 7 });
    const first = await deploy('bounded', 'one');
    expect(first.statusCode).toBe(200);
    expect((await apps().get(project, 'bounded'))?.spec).toMatchObject({ activeBuildId: first.json().build_id, maxConcurrentRequests: 7 });
    const before = await stored('bounded');
    expect(before.builds).toEqual([first.json().build_id]);

    const changed = await deploy('bounded', 'two', '?max_concurrent_requests=9');
    expect([changed.statusCode, changed.json().detail]).toEqual([409, expect.stringContaining('spec.maxConcurrentRequests is applied by kustomize-controller')]);
    expect(await stored('bounded')).toEqual(before);

    // A rollback serves git's bound too, not the one its build recorded.
    await appliedApp('bounded', 'kustomize-controller', { maxConcurrentRequests: 8 });
    expect((await deploy('bounded', 'two')).statusCode).toBe(200);
    const back = await platform.app.inject({
      method: 'POST',
      url: `/v1/projects/${project}/apps/bounded/rollbacks`,
      headers: { authorization: `Bearer ${token}` },
      payload: { build_id: first.json().build_id },
    });
    expect(back.statusCode).toBe(200);
    expect((await apps().get(project, 'bounded'))?.spec).toMatchObject({ activeBuildId: first.json().build_id, maxConcurrentRequests: 8 });

    // Git's `hostnames: []` (which server-side apply records no owner of) does not stand in a deploy's way.
    await appliedApp('no-names', 'kustomize-controller', { hostnames: [] });
    expect((await deploy('no-names', 'four')).statusCode).toBe(200);
    expect((await apps().get(project, 'no-names'))?.spec.hostnames ?? []).toEqual([]);

    await appliedApp('pinned', 'kustomize-controller', { activeBuildId: 'b-0123456789ab' });
    const pinned = await deploy('pinned', 'three');
    expect([pinned.statusCode, pinned.json().detail]).toEqual([409, expect.stringContaining('spec.activeBuildId is applied by kustomize-controller')]);
    expect(await stored('pinned')).toEqual({ builds: [], artifacts: [] });
  });

  it('refuses changing a project member git declares, or deleting the project; adds and removes the members git leaves out', async () => {
    const [alice, bob, carol] = [await platform.createUser(), await platform.createUser(), await platform.createUser()];
    const id = unique('gitproj');
    const projects = objectClient<KubeObject & { spec: { displayName: string; members?: { user: string; role: string }[] } }>(platform.conn, PROJECTS);
    await projects.apply(
      {
        metadata: { name: id },
        spec: {
          displayName: id,
          members: [
            { user: alice, role: 'owner' },
            { user: bob, role: 'member' },
          ],
        },
      },
      { fieldManager: 'kustomize-controller', force: true },
    );
    try {
      const as = { authorization: `Bearer ${await platform.tokenFor(alice, 'projects:write')}` };
      const member = (method: 'PUT' | 'DELETE', user: string, role?: string) =>
        platform.app.inject({ method, url: `/v1/projects/${id}/members/${user}`, headers: as, ...(role ? { payload: { role } } : {}) });
      await expect.poll(async () => (await member('PUT', carol, 'member')).statusCode).toBe(202);
      const carolAs = { authorization: `Bearer ${await platform.tokenFor(carol, 'projects:write')}` };
      expect((await platform.app.inject({ method: 'POST', url: `/v1/user/invitations/${id}/accept`, headers: carolAs, payload: { role: 'member' } })).statusCode).toBe(200);
      expect((await member('DELETE', carol)).statusCode).toBe(204);

      const promoted = await member('PUT', bob, 'owner');
      expect([promoted.statusCode, promoted.json().detail]).toEqual([409, expect.stringContaining(`Project ${id}: spec.members[user=${bob}] is applied by kustomize-controller`)]);
      expect((await member('DELETE', bob)).statusCode).toBe(409);
      const deleted = await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as });
      expect([deleted.statusCode, deleted.json().detail]).toEqual([409, expect.stringContaining(`Project ${id} is applied by kustomize-controller`)]);
      expect((await projects.get('', id))?.spec.members).toEqual([
        { user: alice, role: 'owner' },
        { user: bob, role: 'member' },
      ]);
    } finally {
      await projects.delete('', id);
    }
  });

  it('leaves an app applied once with kubectl to whoever writes next', async () => {
    await appliedApp('by-kubectl', 'kubectl');
    expect((await call('PUT', '/apps/by-kubectl/environment/GREETING', { value: 'by hand' })).statusCode).toBe(200);
    expect((await apps().get(project, 'by-kubectl'))?.spec.environment).toEqual({ GREETING: 'by hand' });
  });
});
