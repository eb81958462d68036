import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AccessToken, User } from '../../src/apis/v1alpha1/index.ts';
import { SCOPE_NAMES } from '../../src/auth/index.ts';
import { objectClient } from '../../src/kube/index.ts';
import { ACCESS_TOKENS, USERS } from '../../src/platform/resources.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';

let p: PlatformApp;
let admin: string;
let adminToken: string;
let member: string;
let memberToken: string;
let project: string;

beforeAll(async () => {
  p = await platformApp();
  admin = await p.createUser({ admin: true });
  adminToken = await p.tokenFor(admin, SCOPE_NAMES);
  member = await p.createUser();
  // A member holding every scope it can: `admin` is still not effective for a non-administrator.
  memberToken = await p.tokenFor(member, SCOPE_NAMES);
  project = await p.createProject(member);
});
afterAll(() => p?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const eventually = { timeout: 10_000, interval: 25 };

function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: object) {
  return p.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
}

describe('GET /v1/user', () => {
  it('answers who the token acts as, with memberships and effective scopes', async () => {
    const res = await call('GET', '/v1/user', memberToken);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      user: { user_id: member, display_name: null, email: null, admin: false, created_at: expect.any(String), memberships: [{ project_id: project, role: 'owner' }] },
      token: { token_id: expect.stringMatching(/^tok-/), scopes: SCOPE_NAMES.filter((s) => s !== 'admin') },
    });
    const mine = await call('GET', '/v1/user', adminToken);
    expect(mine.json().user).toMatchObject({ user_id: admin, admin: true, memberships: [] });
    expect(mine.json().token.scopes).toContain('admin');
  });
});

describe('users (administrators only)', () => {
  it('refuses members, and administrators whose token lacks admin, with 403 naming the scope', async () => {
    const everyday = await p.tokenFor(admin, ['projects:read', 'tokens:write']);
    for (const token of [memberToken, everyday]) {
      for (const [method, url, payload] of [
        ['GET', '/v1/users'],
        ['POST', '/v1/users', { user_id: unique('nope') }],
        ['GET', `/v1/users/${member}`],
        ['DELETE', `/v1/users/${member}`],
      ] as const) {
        const res = await call(method, url, token, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().detail).toBe('This token lacks the scope admin.');
        expect(res.headers['www-authenticate']).toContain('scope="admin"');
      }
    }
  });

  it('creates a user an administrator can add to a project at once, and lists and reads them', async () => {
    const id = unique('carol');
    const created = await call('POST', '/v1/users', adminToken, { user_id: id, display_name: 'Carol', email: 'carol@example.com' });
    expect(created.statusCode).toBe(201);
    const user = { user_id: id, display_name: 'Carol', email: 'carol@example.com', admin: false, created_at: expect.any(String), memberships: [] };
    expect(created.json()).toEqual({ user });
    try {
      expect((await call('GET', `/v1/users/${id}`, adminToken)).json()).toEqual({ user });
      expect((await call('GET', '/v1/users', adminToken)).json().users).toContainEqual(user);
      expect((await call('POST', '/v1/users', adminToken, { user_id: id })).statusCode).toBe(409);

      const added = await call('PUT', `/v1/projects/${project}/members/${id}`, adminToken, { role: 'member' });
      expect(added.statusCode).toBe(200);
      await vi.waitFor(async () => {
        expect((await call('GET', `/v1/users/${id}`, adminToken)).json().user.memberships).toEqual([{ project_id: project, role: 'member' }]);
      }, eventually);
    } finally {
      await call('DELETE', `/v1/projects/${project}/members/${id}`, adminToken);
      await call('DELETE', `/v1/users/${id}`, adminToken);
    }
  });

  it('creates administrators', async () => {
    const id = unique('root');
    const res = await call('POST', '/v1/users', adminToken, { user_id: id, admin: true });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.admin).toBe(true);
    const token = await p.tokenFor(id, ['admin']);
    expect((await call('GET', '/v1/users', token)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/users/${id}`, adminToken)).statusCode).toBe(204);
  });

  it.each([
    [{ user_id: 'Not_Valid' }, /body\.user_id must match pattern/],
    [{ user_id: 'x'.repeat(254) }, /body\.user_id must NOT have more than 253 characters/],
    [{ user_id: 'ok', email: 'not-an-email' }, /body\.email must match format "email"/],
    [{ user_id: 'ok', admin: 'yes' }, /body\.admin must be boolean/],
    [{ user_id: 'ok', role: 'owner' }, /has an unknown property "role"/],
    [{}, /must have required property 'user_id'/],
  ])('refuses the invalid body %j with 400', async (body, detail) => {
    const res = await call('POST', '/v1/users', adminToken, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
  });

  it('deletes a user only once they belong to no project, revoking their tokens for good', async () => {
    const dave = await p.createUser({ prefix: 'dave' });
    const daveToken = await p.tokenFor(dave, ['projects:read']);
    expect((await call('PUT', `/v1/projects/${project}/members/${dave}`, adminToken, { role: 'member' })).statusCode).toBe(200);

    const refused = await call('DELETE', `/v1/users/${dave}`, adminToken);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toContain(project);
    expect((await call('GET', '/v1/projects', daveToken)).statusCode).toBe(200);

    expect((await call('DELETE', `/v1/projects/${project}/members/${dave}`, adminToken)).statusCode).toBe(204);
    expect((await call('DELETE', `/v1/users/${dave}`, adminToken)).statusCode).toBe(204);
    const gone = await call('GET', '/v1/projects', daveToken);
    expect(gone.statusCode).toBe(401);
    expect((await call('GET', `/v1/users/${dave}`, adminToken)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/users/${dave}`, adminToken)).statusCode).toBe(404);

    // The same id again is a new user: the old tokens stay dead.
    expect((await call('POST', '/v1/users', adminToken, { user_id: dave })).statusCode).toBe(201);
    const revived = await call('GET', '/v1/projects', daveToken);
    expect(revived.statusCode).toBe(401);
    expect(revived.json().detail).toBe('The access token has been revoked.');
  });

  it('binds a token made through the API to its user: one that escaped the deletion dies with the user, for good', async () => {
    const erin = await p.createUser({ prefix: 'erin' });
    const erinToken = await p.tokenFor(erin, ['tokens:write', 'projects:read']);
    const made = await call('POST', '/v1/tokens', erinToken, { description: 'laptop', scopes: ['projects:read'] });
    expect(made.statusCode).toBe(201);
    const { token, access_token: bound } = made.json();
    const users = objectClient<User>(p.conn, USERS);
    const tokens = objectClient<AccessToken>(p.conn, ACCESS_TOKENS);
    const uid = (await users.get('', erin))?.metadata?.uid;
    expect((await tokens.get('', token.token_id))?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'User', name: erin, uid })]);

    // The User deleted behind the API's back, as if the token had been made on another replica just after
    // the deletion's revocations ran, then created again: the id names another user now.
    await users.delete('', erin);
    expect((await call('POST', '/v1/users', adminToken, { user_id: erin })).statusCode).toBe(201);
    await vi.waitFor(async () => {
      const refused = await call('GET', '/v1/projects', bound);
      expect(refused.statusCode).toBe(401);
      // Unless the garbage collector has already deleted it (its owner is gone), which answers "not recognised".
      expect(refused.json().detail).toMatch(/user no longer exists|not recognised/);
    }, eventually);
  });

  it('does not let administrators delete themselves', async () => {
    const res = await call('DELETE', `/v1/users/${admin}`, adminToken);
    expect(res.statusCode).toBe(409);
    expect((await call('GET', '/v1/users', adminToken)).statusCode).toBe(200);
  });
});
