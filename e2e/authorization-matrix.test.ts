// Every project route × {no token, malformed token, revoked token, another project, missing scope,
// allowed}, against a real cw-api on the real control plane. Routes come from the served OpenAPI
// document, so a route added later is covered without touching this file.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadKubeConnection } from '../src/kube/index.ts';
import { KubeTokenStore } from '../api/stores/index.ts';
import { createMemberAccount, mintTestToken, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';

interface Operation {
  method: string;
  path: string;
  scope: string;
}

const kubeconfig = inject('kubeconfig');
let api: ApiServer;
let alice: MemberAccount;
let bob: MemberAccount;
let revoked: string;
let operations: Operation[] = [];
/** Project routes authenticated by a database query token instead of an API token (the query route). */
const queryTokenOperations: Omit<Operation, 'scope'>[] = [];
const noScopeTokens = new Map<string, string>();

beforeAll(async () => {
  // CW_DB_URL registers the database routes; nothing here reaches cw-db (the discard port), as no database exists.
  api = await startApiServer({
    kubeconfig,
    stateDir: inject('stateDir'),
    env: { CW_API_RATE_LIMIT: '100000', CW_API_RATE_BURST: '100000', CW_API_WRITE_RATE_LIMIT: '100000', CW_API_WRITE_RATE_BURST: '100000', CW_DB_URL: 'http://127.0.0.1:9' },
  });
  [alice, bob] = await Promise.all([createMemberAccount(kubeconfig, 'alice'), createMemberAccount(kubeconfig, 'bob')]);
  const doomed = await mintTestToken(kubeconfig, alice.user, ['projects:read', 'projects:write'], 'revoked in the matrix');
  const store = new KubeTokenStore(loadKubeConnection(kubeconfig));
  await store.start(AbortSignal.timeout(30_000));
  await store.revokeToken(doomed.tokenId);
  store.stop();
  revoked = doomed.token;

  const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { security?: { bearer?: string[]; queryToken?: string[] }[] }>>;
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    // The invitee's own routes (`/v1/user/invitations/{projectId}…`) are not a member's: without an invitation they
    // answer 404 whatever the project (api/routes/invitations.int.test.ts).
    if (!path.includes('{projectId}') || path.startsWith('/v1/user/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (op.security?.[0]?.queryToken) {
        queryTokenOperations.push({ method: method.toUpperCase(), path });
        continue;
      }
      const scope = op.security?.[0]?.bearer?.[0];
      if (!scope) throw new Error(`${method.toUpperCase()} ${path} is a project route without a security requirement`);
      operations.push({ method: method.toUpperCase(), path, scope });
    }
  }
  // A token holding one scope that no project route needs lacks the scope of every project route.
  for (const { scope } of operations) {
    if (!noScopeTokens.has(scope)) noScopeTokens.set(scope, (await mintTestToken(kubeconfig, alice.user, ['tokens:read'], `lacks ${scope}`)).token);
  }
}, 120_000);

afterAll(async () => api?.stop());

function call(op: Operation, token: string | undefined, project = alice.project): Promise<Response> {
  const url = api.url + op.path.replace('{projectId}', project).replace(/\{[A-Za-z]+\}/g, 'matrix-probe');
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = token;
  const hasBody = op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH';
  if (hasBody) headers['content-type'] = 'application/json';
  return fetch(url, { method: op.method, headers, ...(hasBody ? { body: '{}' } : {}) });
}

async function expectProblem(res: Response, status: number): Promise<{ detail: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { detail: string };
}

describe('authorization matrix of every project route', () => {
  it('covers the project routes the API serves', () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
  });

  it('answers 401 with WWW-Authenticate: Bearer without a token, with a malformed one and with a revoked one', async () => {
    for (const op of operations) {
      for (const token of [undefined, 'Bearer cwt_not-a-real-token', 'Basic YWxpY2U6cHc=', `Bearer ${revoked}`]) {
        const res = await call(op, token);
        const label = `${op.method} ${op.path} with ${token === undefined ? 'no token' : token.slice(0, 14)}`;
        expect(res.status, label).toBe(401);
        expect(res.headers.get('www-authenticate'), label).toMatch(/^Bearer realm="cloudwright"/);
        const body = await expectProblem(res, 401);
        if (token) expect(body.detail, label).not.toContain(token.slice(7));
      }
    }
  });

  it('answers 403 for a project of somebody else, and for a project that does not exist', async () => {
    for (const op of operations) {
      const foreign = await expectProblem(await call(op, `Bearer ${alice.token}`, bob.project), 403);
      const missing = await expectProblem(await call(op, `Bearer ${alice.token}`, 'no-such-project'), 403);
      expect(foreign.detail.replace(bob.project, 'P')).toBe(missing.detail.replace('no-such-project', 'P'));
    }
  });

  it('answers 403 naming the scope when the token lacks it', async () => {
    for (const op of operations) {
      const body = await expectProblem(await call(op, `Bearer ${noScopeTokens.get(op.scope)}`), 403);
      expect(body.detail, `${op.method} ${op.path}`).toContain(op.scope);
    }
  });

  it('lets the member through: no 401 or 403 on their own project', async () => {
    for (const op of operations) {
      if (op.method === 'DELETE' && op.path === '/v1/projects/{projectId}') continue; // asserted below, last
      const res = await call(op, `Bearer ${alice.token}`);
      expect([401, 403], `${op.method} ${op.path} answered ${res.status}`).not.toContain(res.status);
      expect(res.status, `${op.method} ${op.path}`).toBeLessThan(500);
    }
    const project = await fetch(`${api.url}/v1/projects/${alice.project}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(project.status).toBe(200);
    expect(((await project.json()) as { project: { project_id: string } }).project.project_id).toBe(alice.project);
  });

  it('answers 401 on query-token routes to no token, an API token and a guessed one, without telling whether the database exists', async () => {
    expect(queryTokenOperations.map((op) => `${op.method} ${op.path}`).sort()).toEqual([
      'POST /v1/projects/{projectId}/databases/{database}/migrations',
      'POST /v1/projects/{projectId}/databases/{database}/query',
    ]);
    for (const op of queryTokenOperations) {
      for (const token of [undefined, `Bearer ${alice.token}`, 'Bearer cwdb_guessed']) {
        const res = await call({ ...op, scope: '' }, token);
        expect(res.status, `${op.method} ${op.path} with ${token === undefined ? 'no token' : token.slice(0, 12)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
  });

  it('lists exactly the caller’s projects', async () => {
    const res = await fetch(`${api.url}/v1/projects`, { headers: { authorization: `Bearer ${bob.token}` } });
    const { projects } = (await res.json()) as { projects: { project_id: string }[] };
    expect(projects.map((p) => p.project_id)).toEqual([bob.project]);
  });
});
