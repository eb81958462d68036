import { beforeEach, describe, expect, it } from 'vitest';
import { authenticate, authorize, requireScope, type Principal } from './authenticate.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';
import { issueToken } from './issue-token.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import type { TokenStore } from './ports.ts';
import type { Scope } from './scopes.ts';
import { generateToken, type PlaintextToken } from './token.ts';
import { NotFoundError } from '../errors.ts';

const NOW = new Date('2030-06-01T12:00:00Z');
const ms = (offset: number): Date => new Date(NOW.getTime() + offset);

let store: MemoryTokenStore;
beforeEach(() => {
  store = new MemoryTokenStore({
    users: [
      { id: 'alice', admin: false },
      { id: 'root', admin: true },
    ],
    memberships: { 'proj-a': { alice: 'owner' }, 'proj-b': { bob: 'member' } },
  });
});

async function tokenOf(userId: string, scopes: string[], expiresAt?: Date): Promise<PlaintextToken> {
  const { token } = await issueToken(userId, { scopes: scopes as Scope[], description: 'test', expiresAt }, store, ms(-60_000));
  return token;
}

/** Every 8-character window of the token: none may appear in an error. */
function fragments(token: string): string[] {
  return Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8)).filter((part) => !part.startsWith('cwt_'));
}

async function expect401(header: string | undefined, detail: RegExp, tokenPresented: boolean, at = NOW): Promise<void> {
  const error = await authenticate(header, store, at).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  const { status, message, headers } = error as UnauthorizedError;
  expect(status).toBe(401);
  expect(message).toMatch(detail);
  expect(headers['www-authenticate']).toBe(tokenPresented ? 'Bearer realm="cloudwright", error="invalid_token"' : 'Bearer realm="cloudwright"');
  for (const part of fragments(header ?? '')) expect(message).not.toContain(part);
}

describe('authenticate: refusals', () => {
  const typo = (token: string): string => token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11);

  it.each<{ name: string; header: () => Promise<string | undefined>; detail: RegExp; presented: boolean }>([
    { name: 'no header', header: async () => undefined, detail: /needs an access token/, presented: false },
    { name: 'an empty header', header: async () => '', detail: /needs an access token/, presented: false },
    { name: 'a blank header', header: async () => '   ', detail: /needs an access token/, presented: false },
    { name: 'Basic credentials', header: async () => 'Basic YWxpY2U6c2VjcmV0', detail: /must use the Bearer scheme/, presented: false },
    { name: 'a bare token without scheme', header: async () => generateToken(), detail: /must use the Bearer scheme/, presented: false },
    { name: 'Bearer without a token', header: async () => 'Bearer', detail: /carries no token/, presented: false },
    { name: 'Bearer and spaces', header: async () => 'Bearer    ', detail: /carries no token/, presented: false },
    { name: 'two credentials', header: async () => `Bearer ${generateToken()} x`, detail: /malformed/, presented: true },
    {
      name: 'two Authorization headers, joined by the server, a valid token first',
      header: async () => `Bearer ${await tokenOf('alice', ['apps:read'])}, Bearer ${generateToken()}`,
      detail: /^The request carries more than one Authorization header or credential; send exactly one\.$/,
      presented: true,
    },
    { name: "another vendor's token", header: async () => 'Bearer ghp_0123456789abcdefghij0123456789abcdef', detail: /not a Cloudwright access token/, presented: true },
    { name: 'a truncated token', header: async () => `Bearer ${generateToken().slice(0, 30)}`, detail: /malformed/, presented: true },
    { name: 'a mistyped token', header: async () => `Bearer ${typo(await tokenOf('alice', ['apps:read']))}`, detail: /checksum does not match/, presented: true },
    { name: 'an unknown token', header: async () => `Bearer ${generateToken()}`, detail: /^The access token is not recognised\.$/, presented: true },
    {
      name: 'a revoked token',
      header: async () => {
        const token = await tokenOf('alice', ['apps:read']);
        const [record] = await store.listTokens('alice');
        await store.revokeToken(record?.id ?? '');
        return `Bearer ${token}`;
      },
      detail: /^The access token has been revoked\.$/,
      presented: true,
    },
    { name: 'a token expiring this instant', header: async () => `Bearer ${await tokenOf('alice', ['apps:read'], NOW)}`, detail: /^The access token has expired\.$/, presented: true },
    { name: 'a token expired 1 ms ago', header: async () => `Bearer ${await tokenOf('alice', ['apps:read'], ms(-1))}`, detail: /has expired/, presented: true },
    {
      name: 'a token whose user was deleted',
      header: async () => {
        const token = await tokenOf('alice', ['apps:read']);
        store.deleteUser('alice');
        return `Bearer ${token}`;
      },
      detail: /user no longer exists/,
      presented: true,
    },
    {
      name: 'a token bound to an earlier user of the same id (deleted, then created again)',
      header: async () => {
        store.putUser({ id: 'alice', admin: false, uid: 'uid-1' });
        const { token } = await issueToken('alice', { scopes: ['apps:read'], description: 'bound', userUid: 'uid-1' }, store, ms(-60_000));
        store.deleteUser('alice');
        store.putUser({ id: 'alice', admin: false, uid: 'uid-2' });
        return `Bearer ${token}`;
      },
      detail: /user no longer exists/,
      presented: true,
    },
  ])('refuses $name with 401', async ({ header, detail, presented }) => {
    await expect401(await header(), detail, presented);
  });

  it('accepts a token bound to the user it acts as, and an unbound one, whatever the uid', async () => {
    store.putUser({ id: 'alice', admin: false, uid: 'uid-1' });
    const { token: bound } = await issueToken('alice', { scopes: ['apps:read'], description: 'bound', userUid: 'uid-1' }, store, ms(-60_000));
    await expect(authenticate(`Bearer ${bound}`, store, NOW)).resolves.toMatchObject({ userId: 'alice' });
    await expect(authenticate(`Bearer ${await tokenOf('alice', ['apps:read'])}`, store, NOW)).resolves.toMatchObject({ userId: 'alice' });
  });

  it('refuses a record a loose store matched by a hash prefix', async () => {
    const token = await tokenOf('alice', ['apps:read']);
    const [record] = await store.listTokens('alice');
    const loose: Pick<TokenStore, 'findTokenByHash' | 'getUser'> = {
      findTokenByHash: async () => record && { ...record, tokenHash: `${record.tokenHash.slice(0, 32)}${'0'.repeat(32)}` },
      getUser: (id) => store.getUser(id),
    };
    await expect(authenticate(`Bearer ${token}`, loose, NOW)).rejects.toThrow(/not recognised/);
  });
});

describe('authenticate: principals', () => {
  it('accepts a token 1 ms before it expires', async () => {
    const token = await tokenOf('alice', ['apps:read'], ms(1));
    await expect(authenticate(`Bearer ${token}`, store, NOW)).resolves.toMatchObject({ userId: 'alice' });
    await expect401(`Bearer ${token}`, /has expired/, true, ms(1));
  });

  it.each(['Bearer %s', 'bearer %s', 'BEARER   %s  ', '  Bearer\t%s'])('accepts the header form %j', async (form) => {
    const token = await tokenOf('alice', ['apps:read']);
    const principal = await authenticate(form.replace('%s', token), store, NOW);
    const [record] = await store.listTokens('alice');
    expect(principal).toEqual({ userId: 'alice', tokenId: record?.id, scopes: ['apps:read'], admin: false });
  });

  it.each<{ name: string; userId: string; stored: string[]; scopes: Scope[]; admin: boolean }>([
    { name: 'unknown stored scopes grant nothing', userId: 'alice', stored: ['retired:scope', 'env:write'], scopes: ['env:write'], admin: false },
    { name: 'admin on a non-administrator is dropped', userId: 'alice', stored: ['admin', 'apps:read'], scopes: ['apps:read'], admin: false },
    { name: 'an administrator without the admin scope is a member', userId: 'root', stored: ['apps:read'], scopes: ['apps:read'], admin: false },
    { name: 'an administrator with the admin scope is admin', userId: 'root', stored: ['admin', 'apps:read'], scopes: ['apps:read', 'admin'], admin: true },
  ])('$name', async ({ userId, stored, scopes, admin }) => {
    const token = await tokenOf(userId, stored);
    await expect(authenticate(`Bearer ${token}`, store, NOW)).resolves.toMatchObject({ userId, scopes, admin });
  });
});

describe('authorize', () => {
  const principal = (scopes: Scope[], overrides: Partial<Principal> = {}): Principal => ({
    userId: 'alice',
    tokenId: 'tok-0000000000000000',
    scopes,
    admin: false,
    ...overrides,
  });
  const admin = principal(['apps:read', 'admin'], { userId: 'root', admin: true });

  it.each<{ name: string; who: Principal; scope: Scope; projectId?: string }>([
    { name: 'a member with the scope', who: principal(['apps:read']), scope: 'apps:read', projectId: 'proj-a' },
    { name: 'write implying read', who: principal(['apps:write']), scope: 'apps:read', projectId: 'proj-a' },
    { name: 'an administrator in a foreign project', who: admin, scope: 'apps:read', projectId: 'proj-b' },
    { name: 'an administrator on an admin route', who: admin, scope: 'admin' },
    { name: 'a scope-only route', who: principal(['tokens:read']), scope: 'tokens:read' },
  ])('lets through $name', async ({ who, scope, projectId }) => {
    await expect(authorize(who, { scope, projectId }, store)).resolves.toBeUndefined();
  });

  it.each<{ name: string; who: Principal; scope: Scope; projectId?: string; detail: string; challenge: boolean }>([
    { name: 'a missing scope', who: principal(['apps:read']), scope: 'apps:write', projectId: 'proj-a', detail: 'This token lacks the scope apps:write.', challenge: true },
    { name: 'a missing scope in a foreign project', who: principal([]), scope: 'env:read', projectId: 'proj-b', detail: 'This token lacks the scope env:read.', challenge: true },
    {
      name: 'a foreign project',
      who: principal(['apps:read']),
      scope: 'apps:read',
      projectId: 'proj-b',
      detail: 'The project "proj-b" does not exist or you are not a member of it.',
      challenge: false,
    },
    {
      name: 'a missing project',
      who: principal(['apps:read']),
      scope: 'apps:read',
      projectId: 'proj-zz',
      detail: 'The project "proj-zz" does not exist or you are not a member of it.',
      challenge: false,
    },
    {
      name: 'an administrator token without admin scope in a foreign project',
      who: principal(['apps:read'], { userId: 'root' }),
      scope: 'apps:read',
      projectId: 'proj-b',
      detail: 'The project "proj-b" does not exist or you are not a member of it.',
      challenge: false,
    },
    { name: 'an admin route for a member', who: principal(['admin']), scope: 'admin', detail: 'This token lacks the scope admin.', challenge: true },
  ])('refuses $name with 403', async ({ who, scope, projectId, detail, challenge }) => {
    const error = await authorize(who, { scope, projectId }, store).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, message: detail });
    expect('www-authenticate' in (error as ForbiddenError).headers).toBe(challenge);
  });

  it('answers an administrator 404 for a project that does not exist', async () => {
    const error = await authorize(admin, { scope: 'apps:read', projectId: 'kube-system' }, store).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, message: 'The project "kube-system" does not exist.' });
  });

  it('answers a foreign and a missing project alike', async () => {
    const detailFor = (projectId: string) => authorize(principal(['apps:read']), { scope: 'apps:read', projectId }, store).catch((e: Error) => e.message.replace(projectId, 'ID'));
    expect(await detailFor('proj-b')).toBe(await detailFor('proj-zz'));
  });

  it('looks up no membership for scope-only routes or before the scope passed', async () => {
    const noLookups: Pick<TokenStore, 'getMembership' | 'hasProject'> = {
      getMembership: () => Promise.reject(new Error('looked up')),
      hasProject: () => Promise.reject(new Error('looked up')),
    };
    await expect(authorize(principal(['tokens:read']), { scope: 'tokens:read' }, noLookups)).resolves.toBeUndefined();
    await expect(authorize(principal([]), { scope: 'apps:read', projectId: 'proj-a' }, noLookups)).rejects.toThrow(ForbiddenError);
  });

  it('bounds the project id it echoes', async () => {
    const long = 'p'.repeat(500);
    await expect(authorize(principal(['apps:read']), { scope: 'apps:read', projectId: long }, store)).rejects.toThrow(/"p{63}…"/);
  });

  it('requireScope is the scope half alone', () => {
    expect(() => requireScope(principal(['tokens:write']), 'tokens:read')).not.toThrow();
    expect(() => requireScope(principal(['tokens:read']), 'tokens:write')).toThrow('This token lacks the scope tokens:write.');
  });
});
