// GET …/apps/{appId}/deployments: the deploy history the operator's RuntimeApp controller (running beside the
// API in this fixture, as in a cluster) records in status.history, for changes made through the API and by
// kubectl alike, with who made them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { RUNTIME_APPS } from '../../src/platform/resources.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let owner: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'deploys:write']);
});
afterAll(() => platform.close());

const headers = () => ({ authorization: `Bearer ${token}` });
const worker = (text: string) => artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(text)}); } };` });

async function deploy(appId: string, text: string): Promise<string> {
  const res = await platform.app.inject({
    method: 'POST',
    url: `/v1/projects/${project}/apps/${appId}/deployments`,
    headers: { ...headers(), 'content-type': 'application/octet-stream' },
    payload: worker(text),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().build_id as string;
}

const history = async (appId: string, as = headers()) => platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/apps/${appId}/deployments`, headers: as });

describe('the deploy history', () => {
  it('lists deploys, a rollback and a kubectl change, newest first, with who made them', async () => {
    const created = await platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps`, headers: headers(), payload: { name: 'history' } });
    const appId = created.json().app.app_id as string;
    expect((await history(appId)).json()).toEqual({ deployments: [] });

    const a = await deploy(appId, 'a');
    // The controller records each change as it sees it: wait for one before the next, so none is skipped.
    await vi.waitFor(async () => expect((await history(appId)).json().deployments).toHaveLength(1), { timeout: 10_000, interval: 50 });
    const b = await deploy(appId, 'b');
    await vi.waitFor(async () => expect((await history(appId)).json().deployments).toHaveLength(2), { timeout: 10_000, interval: 50 });
    const back = await platform.app.inject({ method: 'POST', url: `/v1/projects/${project}/apps/${appId}/rollbacks`, headers: headers(), payload: { build_id: a } });
    expect(back.statusCode).toBe(200);
    await vi.waitFor(async () => expect((await history(appId)).json().deployments).toHaveLength(3), { timeout: 10_000, interval: 50 });

    // kubectl sets the spec without the annotations: recorded, by nobody (the annotations name another build).
    const apps = objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
    const live = await apps.get(project, appId);
    await apps.replace({ ...live!, spec: { ...live!.spec, activeBuildId: b } });
    await vi.waitFor(async () => expect((await history(appId)).json().deployments).toHaveLength(4), { timeout: 10_000, interval: 50 });

    const { deployments } = (await history(appId)).json();
    const by = `user:${owner}`;
    expect(deployments).toEqual([
      { build_id: b, kind: 'rollback', activated_at: expect.any(String), active: true },
      { build_id: a, kind: 'rollback', activated_at: expect.any(String), by, active: false },
      { build_id: b, kind: 'deploy', activated_at: expect.any(String), by, active: false },
      { build_id: a, kind: 'deploy', activated_at: expect.any(String), by, active: false },
    ]);
    const times = deployments.map((d: { activated_at: string }) => Date.parse(d.activated_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    // No runtime in this fixture: nothing is served, so no time to serve.
    expect(deployments.some((d: { served_at?: string }) => d.served_at)).toBe(false);
  });

  it('needs apps:read and the project, and answers 404 for an unknown app', async () => {
    const stranger = await platform.createUser();
    const theirs = { authorization: `Bearer ${await platform.tokenFor(stranger, ['apps:read'])}` };
    expect((await history('nope', theirs)).statusCode).toBe(403);
    const noScope = { authorization: `Bearer ${await platform.tokenFor(owner, ['projects:read'])}` };
    expect((await history('nope', noScope)).statusCode).toBe(403);
    expect((await history('nope')).statusCode).toBe(404);
  });
});
