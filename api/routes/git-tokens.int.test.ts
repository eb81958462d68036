import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GitToken } from '../../src/apis/v1alpha1/git-token.ts';
import { issueToken, parseScopes } from '../../src/auth/index.ts';
import { objectClient } from '../../src/kube/index.ts';
import { GIT_TOKENS } from '../../src/platform/resources.ts';
import { gitTokenSha256 } from '../../src/auth/git-token.ts';
import { GIT_URL, platformApp, type PlatformApp } from './testing/platform-app.ts';

let platform: PlatformApp;
let project: string;
let owner: string;
let member: string;
let ownerToken: string;
let memberToken: string;

beforeAll(async () => {
  platform = await platformApp();
  owner = await platform.createUser();
  member = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  await platform.projects.addMember(project, { user: member, role: 'member' }, { userId: owner, direct: true });
  ownerToken = await platform.tokenFor(owner, ['tokens:write', 'repositories:write']);
  memberToken = await platform.tokenFor(member, ['tokens:write', 'repositories:write']);
  await vi.waitFor(async () => expect(await platform.tokens.getMembership(project, member)).toBe('member'), { timeout: 10_000, interval: 20 });
});
afterAll(() => platform.close());

const resources = () => objectClient<GitToken>(platform.conn, GIT_TOKENS);
const call = (token: string, method: 'GET' | 'POST' | 'DELETE', path = '', payload?: object, projectId = project) =>
  platform.app.inject({ method, url: `/v1/projects/${projectId}/git-tokens${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

describe('git tokens', () => {
  it('makes a token shown once, stored only as its hash in a GitToken of the project’s namespace', async () => {
    const res = await call(ownerToken, 'POST', '', { description: 'laptop', scopes: ['write'], expires_in_seconds: 3600 });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.git_token).toMatch(/^cwg_[0-9A-Za-z]{43}$/);
    expect(body.git_url).toBe(GIT_URL);
    expect(body.token).toMatchObject({ description: 'laptop', scopes: ['write'], user: owner, state: 'active' });
    expect(body.token.token_id).toMatch(/^gtk-[0-9a-f]{16}$/);
    expect(Date.parse(body.token.expires_at) - Date.parse(body.token.created_at)).toBeGreaterThan(3590_000);

    const stored = await resources().get(project, body.token.token_id);
    expect(stored?.spec).toMatchObject({ user: owner, scopes: ['write'], tokenHash: gitTokenSha256(body.git_token) });
    expect(JSON.stringify(stored)).not.toContain(body.git_token);

    const listed = await call(memberToken, 'GET');
    expect(listed.statusCode).toBe(200);
    expect(listed.json().git_url).toBe(GIT_URL);
    expect(listed.json().tokens).toContainEqual(body.token);
    expect(listed.body).not.toContain(body.git_token);
    expect(listed.body).not.toContain(gitTokenSha256(body.git_token));
  });

  it('needs repositories:read for a read token and repositories:write for a write one, and tokens:write to make either', async () => {
    const readOnly = await platform.tokenFor(owner, ['tokens:write', 'repositories:read']);
    expect((await call(readOnly, 'POST', '', { description: 'ci', scopes: ['read'] })).statusCode).toBe(201);
    const write = await call(readOnly, 'POST', '', { description: 'ci', scopes: ['read', 'write'] });
    expect(write.statusCode).toBe(403);
    expect(write.json().detail).toBe('A git token with the write scope needs repositories:write, which this token does not hold.');
    const noTokens = await platform.tokenFor(owner, ['repositories:write', 'tokens:read']);
    expect((await call(noTokens, 'POST', '', { description: 'ci', scopes: ['read'] })).statusCode).toBe(403);
    expect((await call(noTokens, 'GET')).statusCode).toBe(200);
    expect((await call(await platform.tokenFor(owner, ['tokens:write']), 'GET')).statusCode).toBe(403);
  });

  it('refuses what is not a token request, and projects the caller is not in', async () => {
    for (const payload of [
      { description: 'x', scopes: [] },
      { description: 'x', scopes: ['admin'] },
      { description: 'x', scopes: ['read', 'read'] },
      { description: '', scopes: ['read'] },
      { description: 'x', scopes: ['read'], expires_in_seconds: 59 },
      { description: 'x', scopes: ['read'], expires_in_seconds: 366 * 86_400 + 1 },
      { description: 'x', scopes: ['read'], repos: ['other'] },
    ]) {
      expect((await call(ownerToken, 'POST', '', payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
    const stranger = await platform.createUser();
    const elsewhere = await platform.createProject(stranger, { namespace: true });
    expect((await call(ownerToken, 'POST', '', { description: 'x', scopes: ['read'] }, elsewhere)).statusCode).toBe(403);
    expect((await call(ownerToken, 'GET', '', undefined, elsewhere)).statusCode).toBe(403);
  });

  it('refuses an administrator who is not a member: a git token acts as a member', async () => {
    const admin = await platform.createUser({ admin: true });
    const adminToken = await platform.tokenFor(admin, ['admin', 'tokens:write', 'repositories:write']);
    const res = await call(adminToken, 'POST', '', { description: 'x', scopes: ['read'] });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatch(/not one of .*add yourself as a member first/);
  });

  it('expires a token no later than the calling token', async () => {
    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 600_000);
    const short = await issueToken(member, { scopes: parseScopes(['tokens:write', 'repositories:read']), description: 'short', expiresAt }, platform.tokens, new Date());
    const res = await call(short.token, 'POST', '', { description: 'x', scopes: ['read'], expires_in_seconds: 86_400 });
    expect(res.statusCode).toBe(201);
    expect(res.json().token.expires_at).toBe(expiresAt.toISOString());
    const forever = await call(short.token, 'POST', '', { description: 'x', scopes: ['read'] });
    expect(forever.json().token.expires_at).toBe(expiresAt.toISOString());
  });

  it('lets a member revoke their own token and an owner any; others’ answer 403, unknown ones 404', async () => {
    const mine = (await call(memberToken, 'POST', '', { description: 'mine', scopes: ['read'] })).json().token.token_id as string;
    const owners = (await call(ownerToken, 'POST', '', { description: 'owner’s', scopes: ['read'] })).json().token.token_id as string;
    const denied = await call(memberToken, 'DELETE', `/${owners}`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe(`Git token ${owners} was made by ${owner}: only they or an owner of the project may revoke it.`);
    expect((await call(memberToken, 'DELETE', `/${mine}`)).statusCode).toBe(204);
    expect((await call(memberToken, 'DELETE', `/${mine}`)).statusCode).toBe(204);
    const other = (await call(memberToken, 'POST', '', { description: 'other', scopes: ['read'] })).json().token.token_id as string;
    expect((await call(ownerToken, 'DELETE', `/${other}`)).statusCode).toBe(204);
    expect((await resources().get(project, other))?.spec.revoked).toBe(true);
    const states = new Map((await call(ownerToken, 'GET')).json().tokens.map((t: { token_id: string; state: string }) => [t.token_id, t.state]));
    expect([states.get(mine), states.get(other), states.get(owners)]).toEqual(['revoked', 'revoked', 'active']);
    expect((await call(ownerToken, 'DELETE', '/gtk-0000000000000000')).statusCode).toBe(404);
  });
});
