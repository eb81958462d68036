import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_BRANCH_ANNOTATION, PREVIEW_OF_LABEL, type AppSource } from '../../src/apis/v1alpha1/app-source.ts';
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { Scope } from '../../src/auth/index.ts';
import { objectClient } from '../../src/kube/index.ts';
import { APP_SOURCES, PROJECT_LABEL, REPOSITORIES, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let owner: string;
let project: string;
let otherProject: string;
let token: string;

const sources = () => objectClient<AppSource>(platform.conn, APP_SOURCES);
/** What connecting an app takes: it reads the repository, deploys every push, and its builds see the app's variables. */
const CONNECT: Scope[] = ['apps:write', 'repositories:read', 'deploys:write', 'env:read'];
const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  // Another tenant, with a repository of its own.
  otherProject = await platform.createProject(await platform.createUser(), { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'repositories:read', 'deploys:write', 'env:read', 'audit:read', 'env:write', 'databases:write']);
  const repositories = objectClient<Repository>(platform.conn, REPOSITORIES);
  await repositories.create({ metadata: { name: 'site', namespace: project }, spec: { owner: project, name: 'site' } });
  await repositories.create({ metadata: { name: 'docs', namespace: project }, spec: { owner: project, name: 'docs' } });
  await repositories.create({ metadata: { name: 'secret', namespace: otherProject }, spec: { owner: otherProject, name: 'secret' } });
  // A tenant's resource naming the other project's repository from its own namespace: it holds nothing (the
  // Repository controller refuses the owner), and must not let this project build that code.
  await repositories.create({ metadata: { name: 'theirs', namespace: project }, spec: { owner: otherProject, name: 'secret' } });
  await repositories.create({ metadata: { name: 'shop-site', namespace: project }, spec: { owner: 'shop', name: 'site' } });
});
afterAll(() => platform.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, bearer = token) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

async function createApp(name: string): Promise<string> {
  const res = await call('POST', '/apps', { name });
  expect(res.statusCode).toBe(201);
  return res.json().app.app_id as string;
}

describe('connecting an app to a repository', () => {
  it('connects, shows, replaces and disconnects, writing the AppSource spec only', async () => {
    const appId = await createApp('src-basic');
    const put = await call('PUT', `/apps/${appId}/source`, {
      repository: `${project}/site`,
      production_branch: 'release',
      preview_branches: ['feature/*'],
      root_directory: 'apps/web',
      build_command: 'npm ci && npm run build',
      output_directory: 'dist',
      environment: { production: { API_URL: 'https://api.example' }, preview: { API_URL: 'https://staging.example' } },
      preview_databases: 'fork',
    });
    expect(put.statusCode).toBe(201);
    const view = put.json().source;
    expect(view).toMatchObject({
      app_id: appId,
      repository: `${project}/site`,
      production_branch: 'release',
      preview_branches: ['feature/*'],
      root_directory: 'apps/web',
      build_command: 'npm ci && npm run build',
      output_directory: 'dist',
      environment: { production: { API_URL: 'https://api.example' }, preview: { API_URL: 'https://staging.example' } },
      preview_databases: 'fork',
      state: 'pending',
      previews: [],
    });
    const stored = await sources().get(project, appId);
    expect(stored?.spec).toStrictEqual({
      app: appId,
      repository: { owner: project, name: 'site' },
      productionBranch: 'release',
      previewBranches: ['feature/*'],
      rootDirectory: 'apps/web',
      build: { command: 'npm ci && npm run build', outputDirectory: 'dist' },
      environment: { production: { API_URL: 'https://api.example' }, preview: { API_URL: 'https://staging.example' } },
      previewDatabases: 'Fork',
    });
    expect(stored?.status).toBeUndefined();
    // Owned by the app: deleting the app deletes its connection.
    expect(stored?.metadata?.ownerReferences).toMatchObject([{ kind: 'RuntimeApp', name: appId }]);
    expect(stored?.metadata?.labels?.[PROJECT_LABEL]).toBe(project);

    expect((await call('GET', `/apps/${appId}/source`)).json()).toStrictEqual({ source: view });
    expect((await call('GET', `/apps/${appId}`)).json().app.source).toBe(`${project}/site`);

    // PUT replaces whole: what is left out gets its default again.
    const replaced = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/docs`, preview_branches: [] });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().source).toMatchObject({
      repository: `${project}/docs`,
      production_branch: 'main',
      preview_branches: [],
      environment: { production: {}, preview: {} },
      preview_databases: 'none',
    });
    expect(replaced.json().source).not.toHaveProperty('build_command');
    expect((await sources().get(project, appId))?.spec).toStrictEqual({
      app: appId,
      repository: { owner: project, name: 'docs' },
      productionBranch: 'main',
      previewBranches: [],
      previewDatabases: 'None',
    });
    // The same settings again: 200, nothing written.
    const generation = (await sources().get(project, appId))?.metadata?.generation;
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/docs`, preview_branches: [] })).statusCode).toBe(200);
    expect((await sources().get(project, appId))?.metadata?.generation).toBe(generation);
    // Absent preview patterns: every branch.
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/docs` })).json().source.preview_branches).toEqual(['*']);

    expect((await call('DELETE', `/apps/${appId}/source`)).statusCode).toBe(204);
    expect(await sources().get(project, appId)).toBeUndefined();
    expect((await call('GET', `/apps/${appId}/source`)).statusCode).toBe(404);
    expect((await call('DELETE', `/apps/${appId}/source`)).statusCode).toBe(404);
    const app = (await call('GET', `/apps/${appId}`)).json().app;
    expect(app).not.toHaveProperty('source');
    expect(app.app_id).toBe(appId); // the app stays
  });

  it('sums the operator’s status up as a state, with production and previews', async () => {
    const appId = await createApp('src-status');
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` })).statusCode).toBe(201);
    const written = await sources().get(project, appId);
    const generation = written?.metadata?.generation ?? 1;
    const commit = 'a'.repeat(40);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    // As the AppSource controller would: through the status subresource.
    await sources().patchStatus(project, appId, {
      status: {
        observedGeneration: generation,
        conditions: [
          { type: 'RepositoryReady', status: 'True', reason: 'Found', message: 'Read the refs.', lastTransitionTime: now, observedGeneration: generation },
          { type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'npm run build exited with 1.', lastTransitionTime: now, observedGeneration: generation },
        ],
        production: { branch: 'main', app: appId, host: `${appId}.${project}.apps.localhost`, commit, build: `${appId}-aaaaaaaaaaaa`, message: 'Its build failed.' },
        previews: [{ branch: 'feature/x', app: `feature-x--${appId}`, commit: 'b'.repeat(40), deployedCommit: 'b'.repeat(40), deployedBuildId: 'b-0123456789abcdef', deployedAt: now }],
      },
    });
    await expect
      .poll(async () => (await call('GET', `/apps/${appId}/source`)).json().source, { timeout: 10_000, interval: 50 })
      .toMatchObject({
        state: 'failed',
        reason: 'BuildFailed',
        message: 'npm run build exited with 1.',
        production: { branch: 'main', app_id: appId, host: `${appId}.${project}.apps.localhost`, commit, source_build_id: `${appId}-aaaaaaaaaaaa`, message: 'Its build failed.' },
        previews: [{ branch: 'feature/x', app_id: `feature-x--${appId}`, deployed_commit: 'b'.repeat(40), deployed_build_id: 'b-0123456789abcdef', deployed_at: now }],
      });
    // The app's own view says why its latest push is not served, in one line.
    expect((await call('GET', `/apps/${appId}`)).json().app).toMatchObject({ source: `${project}/site`, source_message: 'npm run build exited with 1.' });

    await sources().patchStatus(project, appId, {
      status: { conditions: [{ type: 'RepositoryReady', status: 'False', reason: 'RepositoryNotFound', message: 'shop/site is gone.', lastTransitionTime: now, observedGeneration: generation }] },
    });
    await expect
      .poll(async () => (await call('GET', `/apps/${appId}/source`)).json().source, { timeout: 10_000, interval: 50 })
      .toMatchObject({ state: 'failed', reason: 'RepositoryNotFound', message: 'shop/site is gone.' });

    // A status computed for an earlier spec says nothing of the new one.
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/docs` })).json().source).toMatchObject({ state: 'pending' });
  });

  it('shows preview apps with the app and branch they serve', async () => {
    const appId = await createApp('src-previewed');
    const previewId = `feature-x--${appId}`;
    // As the AppSource controller makes one.
    await apps().create({
      metadata: { name: previewId, namespace: project, labels: { [PROJECT_LABEL]: project, [PREVIEW_OF_LABEL]: appId }, annotations: { [PREVIEW_BRANCH_ANNOTATION]: 'feature/x' } },
      spec: { displayName: previewId },
    });
    await expect.poll(async () => (await call('GET', `/apps/${previewId}`)).json().app, { timeout: 10_000, interval: 50 }).toMatchObject({ preview_of: appId, branch: 'feature/x' });
    const listed = (await call('GET', '/apps')).json().apps as { app_id: string; preview_of?: string }[];
    expect(listed.find((a) => a.app_id === previewId)?.preview_of).toBe(appId);
    expect(listed.find((a) => a.app_id === appId)).not.toHaveProperty('preview_of');

    // A preview app is connected through the app it previews.
    const refused = await call('PUT', `/apps/${previewId}/source`, { repository: `${project}/site` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toContain(`connect ${appId} instead`);
    expect(await sources().get(project, previewId)).toBeUndefined();
  });

  it('refuses an unknown app, a repository the project does not have, and another project’s, even named from its own namespace', async () => {
    const appId = await createApp('src-missing');
    const noApp = await call('PUT', '/apps/no-such-app/source', { repository: `${project}/site` });
    expect(noApp.statusCode).toBe(404);
    expect(noApp.json().detail).toContain('no-such-app');
    expect((await call('GET', '/apps/no-such-app/source')).statusCode).toBe(404);
    expect((await call('DELETE', '/apps/no-such-app/source')).statusCode).toBe(404);

    // Not the project's: one it lacks, the other project's (also through a resource of this namespace naming it),
    // and an owner that is no project's.
    for (const repository of [`${project}/nothing`, `${otherProject}/secret`, 'shop/site']) {
      const res = await call('PUT', `/apps/${appId}/source`, { repository });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toContain(`Project ${project} has no repository ${repository}`);
    }
    expect(await sources().get(project, appId)).toBeUndefined();
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` })).statusCode).toBe(201);
    expect((await call('GET', `/apps/${appId}`)).json().app.source).toBe(`${project}/site`);
    // Another project's app is out of reach whatever the repository.
    const theirs = await platform.app.inject({
      method: 'PUT',
      url: `/v1/projects/${otherProject}/apps/${appId}/source`,
      headers: { authorization: `Bearer ${token}` },
      payload: { repository: 'rival/secret' },
    });
    expect(theirs.statusCode).toBe(403);
  });

  it.each([
    [{}, 'repository'],
    [{ repository: 'shop' }, 'repository'],
    [{ repository: 'shop/site/extra' }, 'repository'],
    [{ repository: '../site' }, 'repository'],
    [{ repository: 'shop/site', production_branch: 'a..b' }, 'production_branch'],
    [{ repository: 'shop/site', preview_branches: Array.from({ length: 21 }, (_, i) => `p${i}`) }, 'preview_branches'],
    [{ repository: 'shop/site', preview_branches: ['feature x'] }, 'preview_branches'],
    [{ repository: 'shop/site', root_directory: '../etc' }, 'root_directory'],
    [{ repository: 'shop/site', root_directory: '/abs' }, 'root_directory'],
    [{ repository: 'shop/site', output_directory: 'a/../b' }, 'output_directory'],
    [{ repository: 'shop/site', build_command: 'x'.repeat(1025) }, 'build_command'],
    [{ repository: 'shop/site', build_command: 'npm\nrm -rf /' }, 'build_command'],
    [{ repository: 'shop/site', environment: { production: { 'BAD-KEY': 'x' } } }, 'environment'],
    [{ repository: 'shop/site', environment: { preview: { OK: 'x'.repeat(4097) } } }, 'environment'],
    [{ repository: 'shop/site', environment: { staging: {} } }, 'environment'],
    [{ repository: 'shop/site', environment: { production: Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`K${i}`, 'v'])) } }, 'environment'],
    [{ repository: 'shop/site', token: 'x' }, 'token'],
    [{ repository: 'shop/site', preview_databases: 'copy' }, 'preview_databases'],
  ])('refuses bad input #%# with 400 naming the field, writing nothing', async (body, field) => {
    const appId = 'src-bounds';
    if ((await call('GET', `/apps/${appId}`)).statusCode === 404) await createApp(appId);
    const res = await call('PUT', `/apps/${appId}/source`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(field);
    expect(await sources().get(project, appId)).toBeUndefined();
  });

  it('needs apps:write, repositories:read, deploys:write and env:read to connect, apps:write to disconnect, apps:read to look', async () => {
    const appId = await createApp('src-scopes');
    const withScopes = (scopes: Scope[]) => platform.tokenFor(owner, scopes);
    const noRepositories = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` }, await withScopes(['apps:write']));
    expect(noRepositories.statusCode).toBe(403);
    expect(noRepositories.json().detail).toContain('repositories:read');
    const noApps = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` }, await withScopes(['apps:read', 'repositories:write']));
    expect(noApps.statusCode).toBe(403);
    expect(noApps.json().detail).toContain('apps:write');
    // A connection deploys every push, and its builds run with the app's variables (review-162 F3).
    const noDeploys = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` }, await withScopes(['apps:write', 'repositories:read', 'env:read']));
    expect([noDeploys.statusCode, noDeploys.json().detail]).toEqual([403, 'This token lacks the scope deploys:write.']);
    const noEnvRead = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` }, await withScopes(['apps:write', 'repositories:read', 'deploys:write']));
    expect([noEnvRead.statusCode, noEnvRead.json().detail]).toEqual([403, 'This token lacks the scope env:read.']);
    expect(await sources().get(project, appId)).toBeUndefined();

    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site` }, await withScopes(CONNECT))).statusCode).toBe(201);
    const reader = await withScopes(['apps:read']);
    expect((await call('GET', `/apps/${appId}/source`, undefined, reader)).statusCode).toBe(200);
    expect((await call('DELETE', `/apps/${appId}/source`, undefined, reader)).statusCode).toBe(403);
    expect(await sources().get(project, appId)).toBeDefined();
    // A member of another project only.
    const stranger = await platform.tokenFor(await platform.createUser(), CONNECT);
    expect((await call('GET', `/apps/${appId}/source`, undefined, stranger)).statusCode).toBe(403);
    expect((await call('DELETE', `/apps/${appId}/source`, undefined, stranger)).statusCode).toBe(403);
    expect(await sources().get(project, appId)).toBeDefined();
  });

  it("needs env:write to change the builds' variables and databases:write to fork databases; env:read to see the variables", async () => {
    const appId = await createApp('src-env-scopes');
    const connector = await platform.tokenFor(owner, CONNECT);
    const withEnvironment = { repository: `${project}/site`, environment: { production: { API_KEY: 'k-1' } } };
    const noEnv = await call('PUT', `/apps/${appId}/source`, withEnvironment, connector);
    expect([noEnv.statusCode, noEnv.json().detail]).toEqual([403, 'This token lacks the scope env:write.']);
    const noDatabases = await call('PUT', `/apps/${appId}/source`, { repository: `${project}/site`, preview_databases: 'fork' }, connector);
    expect([noDatabases.statusCode, noDatabases.json().detail]).toEqual([403, 'This token lacks the scope databases:write.']);
    expect(await sources().get(project, appId)).toBeUndefined();

    expect((await call('PUT', `/apps/${appId}/source`, { ...withEnvironment, preview_databases: 'fork' })).statusCode).toBe(201);
    // Without env:read the values are not shown, and leaving them out (which would clear them) is a change too.
    const seen = await call('GET', `/apps/${appId}/source`, undefined, await platform.tokenFor(owner, ['apps:read']));
    expect(seen.json().source).not.toHaveProperty('environment');
    expect(seen.json().source.preview_databases).toBe('fork');
    expect((await call('PUT', `/apps/${appId}/source`, { repository: `${project}/docs`, preview_databases: 'fork' }, connector)).statusCode).toBe(403);
    // Nor may it send them (the answer would say whether they are what it guessed).
    expect((await call('PUT', `/apps/${appId}/source`, { ...withEnvironment, preview_databases: 'fork' }, connector)).statusCode).toBe(403);
    expect((await sources().get(project, appId))?.spec.environment).toStrictEqual({ production: { API_KEY: 'k-1' } });
    // What it may change is the rest of an app that has no such variables.
    const plain = await createApp('src-env-plain');
    expect((await call('PUT', `/apps/${plain}/source`, { repository: `${project}/site` }, connector)).statusCode).toBe(201);
    expect((await call('PUT', `/apps/${plain}/source`, { repository: `${project}/docs` }, connector)).statusCode).toBe(200);
    expect((await call('GET', `/apps/${appId}/source`, undefined, await platform.tokenFor(owner, ['env:read', 'apps:read']))).json().source.environment).toStrictEqual({
      production: { API_KEY: 'k-1' },
      preview: {},
    });
  });

  it('records connect and disconnect in the audit trail, without the build command or environment values', async () => {
    const appId = await createApp('src-audited');
    await call('PUT', `/apps/${appId}/source`, {
      repository: `${project}/site`,
      preview_databases: 'fork',
      build_command: 'TOKEN=hunter2 npm run build',
      environment: { production: { KEY: 'v4lue' } },
    });
    await call('DELETE', `/apps/${appId}/source`);
    const entries = (await call('GET', '/audit?resource_type=app')).json().entries as { action: string; resource: { id: string }; details: object; status: number }[];
    const mine = entries.filter((e) => e.resource.id === appId);
    expect(mine.map((e) => [e.action, e.status])).toEqual([
      ['app.disconnect', 204],
      ['app.connect', 201],
      ['app.create', 201],
    ]);
    // Whether previews copy the production databases is said (found in review: a harmless re-connect looked the same).
    expect(mine[1]?.details).toStrictEqual({ repository: `${project}/site`, preview_databases: 'fork' });
    expect(JSON.stringify(entries)).not.toMatch(/hunter2|v4lue/);
  });
});
