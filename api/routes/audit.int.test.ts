import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listAll } from '../../src/object-store/list-all.ts';
import { FaultObjectStore } from '../../src/object-store/testing/fault-object-store.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { projectPrefix, type AuditEntry } from '../audit/audit-entry.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let owner: string;
let project: string;
let token: string;

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, 'apps:write deploys:write env:write repositories:write tokens:write audit:read projects:write');
});
afterAll(() => platform.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const as = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
const call = (method: Method, path: string, payload?: object, headers: Record<string, string> = as(token)) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers, ...(payload ? { payload } : {}) });
const trail = async (query = '', on = project, bearer = token) => platform.app.inject({ method: 'GET', url: `/v1/projects/${on}/audit${query}`, headers: as(bearer) });
const entries = async (query = '', on = project, bearer = token): Promise<AuditEntry[]> => {
  const res = await trail(query, on, bearer);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().entries as AuditEntry[];
};
/** Every object of the project's trail in the bucket, as stored. */
async function storedText(on = project): Promise<string> {
  let text = '';
  for await (const item of listAll(platform.artifacts, projectPrefix(on))) {
    const got = await platform.artifacts.get(item.key);
    if (got?.kind === 'object') text += Buffer.from(got.body).toString('utf8');
  }
  return text;
}

describe('the audit trail', () => {
  it('records who changed what, with the request id and status, stored before the answer; never a value', async () => {
    const created = await call('POST', '/apps', { name: 'audited' }, { ...as(token), 'x-request-id': 'audit-req-1' });
    expect(created.statusCode).toBe(201);
    const appId = created.json().app.app_id as string;
    // Read at once, no waiting: the entry and its outcome were stored before the answer was sent.
    const [first] = await entries();
    expect(first).toMatchObject({
      project_id: project,
      action: 'app.create',
      resource: { type: 'app', id: appId },
      details: { name: 'audited' },
      method: 'POST',
      path: `/v1/projects/${project}/apps`,
      request_id: 'audit-req-1',
      status: 201,
      principal: { user_id: owner, token_name: 'route test', kind: 'access_token' },
    });
    expect(first?.principal.token_id).toMatch(/^tok-/);

    const secretValue = 'hunter2-do-not-record-7f3a';
    expect((await call('PUT', `/apps/${appId}/environment/API_KEY`, { value: secretValue })).statusCode).toBe(200);
    // Refused by validation, before the route runs: nothing changed, nothing recorded.
    const refused = await call('PUT', `/apps/${appId}/environment/OTHER`, { value: secretValue, secret: true });
    expect(refused.statusCode).toBe(400);
    const deployed = await platform.app.inject({
      method: 'POST',
      url: `/v1/projects/${project}/apps/${appId}/deployments?hostnames=`,
      headers: { ...as(token), 'content-type': 'application/octet-stream' },
      payload: artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("hi"); } };' }),
    });
    expect(deployed.statusCode, deployed.body).toBe(200);
    const madeToken = await call('POST', '/git-tokens', { description: 'ci pushes', scopes: ['write'] });
    expect(madeToken.statusCode).toBe(201);
    expect((await call('DELETE', '/apps/no-such-app')).statusCode).toBe(404);

    const recent = await entries('?limit=5');
    expect(recent.map((e) => [e.action, e.resource.id, e.status])).toEqual([
      ['app.delete', 'no-such-app', 404],
      ['git_token.create', madeToken.json().token.token_id, 201],
      ['app.deploy', appId, 200],
      ['environment_variable.set', 'API_KEY', 200],
      ['app.create', appId, 201],
    ]);
    expect(recent[2]?.details).toEqual({ hostnames: '', build_id: deployed.json().build_id });
    expect(recent[3]?.resource).toEqual({ type: 'environment_variable', id: 'API_KEY', app_id: appId });
    const stored = await storedText();
    expect(stored).not.toContain(secretValue);
    expect(stored).not.toContain(madeToken.json().git_token);
    expect(stored).not.toContain(token);
  });

  it('pages newest first with a cursor and filters by resource type', async () => {
    const appId = (await call('POST', '/apps', { name: 'paged' })).json().app.app_id as string;
    // Many writers at once (as several API replicas would be): one object per entry, none lost.
    const keys = Array.from({ length: 12 }, (_, i) => `K${i}`);
    const answers = await Promise.all(keys.map((key) => call('PUT', `/apps/${appId}/environment/${key}`, { value: 'v' })));
    expect(answers.map((a) => a.statusCode)).toEqual(keys.map(() => 200));

    const seen: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const res = await trail(`?limit=5&resource_type=environment_variable${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      seen.push(...(res.json().entries as AuditEntry[]));
      cursor = res.json().next as string | null;
    } while (cursor);
    expect(seen.every((e) => e.resource.type === 'environment_variable')).toBe(true);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect(
      seen
        .filter((e) => e.resource.app_id === appId)
        .map((e) => e.resource.id)
        .sort(),
    ).toEqual([...keys].sort());
    const times = seen.map((e) => e.id);
    expect(times).toEqual([...times].sort());

    expect((await trail('?limit=0')).statusCode).toBe(400);
    expect((await trail('?limit=101')).statusCode).toBe(400);
    expect((await trail('?cursor=../other-project')).statusCode).toBe(400);
    expect((await trail('?resource_type=secrets')).statusCode).toBe(400);
  });

  it('is closed to outsiders, who cannot write into it either', async () => {
    const outsider = await platform.createUser();
    const outsiderToken = await platform.tokenFor(outsider, 'apps:write audit:read');
    const before = (await entries('?limit=100')).length;
    expect((await trail('', project, outsiderToken)).statusCode).toBe(403);
    expect((await call('POST', '/apps', { name: 'intruder' }, as(outsiderToken))).statusCode).toBe(403);
    // A project id that is taken is not the taker's to create: no entry in the trail of the project it names.
    const squat = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(await platform.tokenFor(outsider, 'projects:write')), payload: { project_id: project, name: 'mine' } });
    expect(squat.statusCode).toBe(409);
    expect((await entries('?limit=100')).length).toBe(before);

    const narrow = await platform.tokenFor(owner, 'apps:read');
    expect((await trail('', project, narrow)).statusCode).toBe(403);
    expect((await platform.app.inject({ method: 'GET', url: `/v1/projects/${project}/audit` })).statusCode).toBe(401);
  });

  it('keeps a deleted project’s trail for administrators, and hides an earlier project of the id from the next owner', async () => {
    const id = unique('gone');
    const creator = await platform.createUser();
    const creatorToken = await platform.tokenFor(creator, 'projects:write audit:read');
    // The first project of this id is deleted and the next created right after, within a second or two.
    const created = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(creatorToken), payload: { project_id: id, name: 'short-lived' } });
    expect(created.statusCode).toBe(201);
    expect((await platform.app.inject({ method: 'DELETE', url: `/v1/projects/${id}`, headers: as(creatorToken) })).statusCode).toBe(204);

    expect((await trail('', id, creatorToken)).statusCode).toBe(403);
    const admin = await platform.createUser({ admin: true });
    const adminToken = await platform.tokenFor(admin, 'admin audit:read');
    expect((await entries('', id, adminToken)).map((e) => [e.action, e.principal.user_id, e.status])).toEqual([
      ['project.delete', creator, 204],
      ['project.create', creator, 201],
    ]);

    const next = await platform.createUser();
    const nextToken = await platform.tokenFor(next, 'projects:write audit:read');
    await expectEventually(async () => (await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(nextToken), payload: { project_id: id, name: 'again' } })).statusCode, 201);
    expect((await entries('', id, nextToken)).map((e) => e.action)).toEqual(['project.create']);
    // The next owner's attempts while the first project was still going (409) made nothing and left nothing.
    expect((await entries('', id, adminToken)).map((e) => [e.action, e.status])).toEqual([
      ['project.create', 201],
      ['project.delete', 204],
      ['project.create', 201],
    ]);
  });

  it('keeps nothing of a create its route refused', async () => {
    const id = unique('refused');
    const caller = await platform.tokenFor(await platform.createUser(), 'projects:write');
    const refused = await platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(caller), payload: { project_id: id, name: 'for another', owner: 'someone-else' } });
    expect(refused.statusCode).toBe(403);
    const adminToken = await platform.tokenFor(await platform.createUser({ admin: true }), 'admin audit:read');
    expect(await entries('', id, adminToken)).toEqual([]);
  });

  it('keeps only the winner’s entry when several create the same project at once', async () => {
    const id = unique('race');
    const callers = await Promise.all([0, 1, 2, 3].map(async () => platform.tokenFor(await platform.createUser(), 'projects:write audit:read')));
    // All past the audit hook before any handler creates: each entry is written to the bucket before its handler runs.
    const answers = await Promise.all(callers.map((token) => platform.app.inject({ method: 'POST', url: '/v1/projects', headers: as(token), payload: { project_id: id, name: 'contested' } })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const winner = callers[answers.findIndex((a) => a.statusCode === 201)];
    expect((await entries('', id, winner)).map((e) => [e.action, e.status])).toEqual([['project.create', 201]]);
  });
});

describe('when the bucket does not take the entry', () => {
  let failing: PlatformApp;
  let store: FaultObjectStore;
  beforeAll(async () => {
    failing = await platformApp({ wrapAudit: (bucket) => (store = new FaultObjectStore(bucket)) });
  });
  afterAll(() => failing.close());

  it('refuses the change with 503 and makes none', async () => {
    const user = await failing.createUser();
    const id = await failing.createProject(user, { namespace: true });
    const headers = as(await failing.tokenFor(user, 'apps:write'));
    store.inject({ match: (key) => key.startsWith(projectPrefix(id)), fault: 'crash-before' });
    const refused = await failing.app.inject({ method: 'POST', url: `/v1/projects/${id}/apps`, headers, payload: { name: 'unrecorded' } });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().detail).toContain('audit trail');
    expect((await failing.app.inject({ method: 'GET', url: `/v1/projects/${id}/apps/unrecorded`, headers })).statusCode).toBe(404);
    // The fault is spent: the next try is recorded and made.
    expect((await failing.app.inject({ method: 'POST', url: `/v1/projects/${id}/apps`, headers, payload: { name: 'unrecorded' } })).statusCode).toBe(201);
  });

  it('records a refused create with its status when its entry cannot be taken back', async () => {
    const id = unique('unwithdrawn');
    const caller = await failing.createUser();
    const deleteOf = store.delete.bind(store);
    store.delete = async (key: string) => {
      if (key.startsWith(projectPrefix(id))) throw new Error('the bucket refused the delete');
      return deleteOf(key);
    };
    try {
      const refused = await failing.app.inject({
        method: 'POST',
        url: '/v1/projects',
        headers: as(await failing.tokenFor(caller, 'projects:write')),
        payload: { project_id: id, name: 'for another', owner: 'someone-else' },
      });
      expect(refused.statusCode).toBe(403);
    } finally {
      store.delete = deleteOf;
    }
    const adminToken = await failing.tokenFor(await failing.createUser({ admin: true }), 'admin audit:read');
    const res = await failing.app.inject({ method: 'GET', url: `/v1/projects/${id}/audit`, headers: as(adminToken) });
    expect((res.json().entries as AuditEntry[]).map((e) => [e.action, e.principal.user_id, e.status])).toEqual([['project.create', caller, 403]]);
  });

  it('sends the answer when only the outcome could not be stored: the entry keeps status null', async () => {
    const user = await failing.createUser();
    const id = await failing.createProject(user, { namespace: true });
    const headers = as(await failing.tokenFor(user, 'apps:write audit:read'));
    let puts = 0;
    // The second write of the entry (its outcome) fails; the first (before the change) goes through.
    store.inject({ match: (key) => key.startsWith(projectPrefix(id)) && ++puts === 2, fault: 'crash-before' });
    const made = await failing.app.inject({ method: 'POST', url: `/v1/projects/${id}/apps`, headers, payload: { name: 'half-recorded' } });
    expect(made.statusCode).toBe(201);
    const res = await failing.app.inject({ method: 'GET', url: `/v1/projects/${id}/audit`, headers });
    expect(res.json().entries).toEqual([expect.objectContaining({ action: 'app.create', status: null, request_id: made.headers['x-request-id'] })]);
  });
});

/** Retries `attempt` until it answers `expected` (a project id is free again once the deleted Project is gone). */
async function expectEventually(attempt: () => Promise<number>, expected: number): Promise<void> {
  await vi.waitFor(async () => expect(await attempt()).toBe(expected), { timeout: 10_000, interval: 100 });
}
