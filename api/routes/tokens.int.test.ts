import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, parseToken, SCOPE_NAMES } from '../../src/auth/index.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let p: PlatformApp;
let alice: string;
let aliceToken: string;

beforeAll(async () => {
  p = await platformApp();
  alice = await p.createUser();
  await p.createProject(alice);
  aliceToken = await p.tokenFor(
    alice,
    SCOPE_NAMES.filter((s) => s !== 'admin'),
  );
});
afterAll(() => p?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function createToken(body: object, token = aliceToken) {
  return p.app.inject({ method: 'POST', url: '/v1/tokens', headers: bearer(token), payload: body });
}

describe('personal access tokens over HTTP, on the Kubernetes-backed store', () => {
  it('creates a token that works at once, lists it without its value, and stops it at once on revoke', async () => {
    const created = await createToken({ description: 'laptop', scopes: ['projects:read'] });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { token, access_token: plaintext } = created.json();
    const parsed = parseToken(plaintext);
    if (!parsed.ok) throw new Error(`not a token: ${parsed.reason}`);
    expect(token).toEqual({
      token_id: expect.stringMatching(/^tok-[0-9a-f]{16}$/),
      description: 'laptop',
      scopes: ['projects:read'],
      created_at: expect.any(String),
      expires_at: null,
      state: 'active',
      session: false,
    });

    const projects = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(plaintext) });
    expect(projects.statusCode).toBe(200);
    expect(projects.json().projects.map((x: { role: string }) => x.role)).toEqual(['owner']);

    const listed = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(aliceToken) });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().tokens).toContainEqual(token);
    expect(listed.body).not.toContain(plaintext);
    expect(listed.body).not.toContain(plaintext.slice(4, 20));
    expect(listed.body).not.toContain(hashToken(parsed.token));

    const revoked = await p.app.inject({ method: 'DELETE', url: `/v1/tokens/${token.token_id}`, headers: bearer(aliceToken) });
    expect(revoked.statusCode).toBe(204);
    const refused = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(plaintext) });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="cloudwright", error="invalid_token"');
    expect(refused.json()).toMatchObject({ status: 401, detail: 'The access token has been revoked.' });

    const again = await p.app.inject({ method: 'DELETE', url: `/v1/tokens/${token.token_id}`, headers: bearer(aliceToken) });
    expect(again.statusCode).toBe(204);
    const after = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(aliceToken) });
    expect(after.json().tokens).toContainEqual({ ...token, state: 'revoked' });
  });

  it('lets any token revoke itself (signing out), whatever its scopes, and only itself', async () => {
    const [narrow, other] = await Promise.all([createToken({ description: 'cli', scopes: ['apps:read'] }), createToken({ description: 'other', scopes: ['apps:read'] })]);
    const { access_token: plaintext } = narrow.json();
    const signedOut = await p.app.inject({ method: 'DELETE', url: '/v1/user/token', headers: bearer(plaintext) });
    expect(signedOut.statusCode).toBe(204);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(plaintext) })).statusCode).toBe(401);
    expect((await p.app.inject({ method: 'DELETE', url: '/v1/user/token', headers: bearer(plaintext) })).statusCode).toBe(401);
    const stillThere = await p.app.inject({ method: 'GET', url: `/v1/projects/${'x'}/apps`, headers: bearer(other.json().access_token) });
    expect(stillThere.statusCode).not.toBe(401);
    expect((await p.app.inject({ method: 'DELETE', url: '/v1/user/token' })).statusCode).toBe(401);
  });

  it('takes JSON bodies only (415 for text/plain), and a JSON content type without a body where a route takes none', async () => {
    const asText = await p.app.inject({
      method: 'POST',
      url: '/v1/tokens',
      headers: { ...bearer(aliceToken), 'content-type': 'text/plain' },
      payload: JSON.stringify({ description: 'x', scopes: ['projects:read'] }),
    });
    expect(asText.statusCode).toBe(415);
    expect(asText.headers['content-type']).toMatch(/^application\/problem\+json/);
    const empty = await p.app.inject({ method: 'POST', url: '/v1/tokens', headers: { ...bearer(aliceToken), 'content-type': 'application/json' } });
    expect(empty.statusCode).toBe(400);
    const { token } = (await createToken({ description: 'to revoke', scopes: ['projects:read'] })).json();
    // As SDKs that set the header on every request send it.
    const revoked = await p.app.inject({ method: 'DELETE', url: `/v1/tokens/${token.token_id}`, headers: { ...bearer(aliceToken), 'content-type': 'application/json' } });
    expect(revoked.statusCode).toBe(204);
    // A route that takes no body still reads one sent to it, as OpenAPI documents: a 415 for another type.
    const textToDelete = await p.app.inject({ method: 'DELETE', url: `/v1/tokens/${token.token_id}`, headers: { ...bearer(aliceToken), 'content-type': 'text/plain' }, payload: 'x' });
    expect(textToDelete.statusCode).toBe(415);
  });

  it('says why valid JSON reaching for a prototype is refused, apart from JSON that is not valid', async () => {
    const post = (payload: string) => p.app.inject({ method: 'POST', url: '/v1/tokens', headers: { ...bearer(aliceToken), 'content-type': 'application/json' }, payload });
    for (const payload of ['{"__proto__":{"admin":true},"description":"x","scopes":["projects:read"]}', '{"description":"x","constructor":{"prototype":{}}}']) {
      const refused = await post(payload);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().detail).toBe('The body is refused: it has a "__proto__" key, or a "constructor" object with a "prototype" key.');
    }
    const broken = await post('{"description":');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().detail).toBe("Body is not valid JSON but content-type is set to 'application/json'");
  });

  it('refuses a string with an unpaired surrogate escape anywhere in a JSON body, and keeps a paired one', async () => {
    const post = (payload: string) => p.app.inject({ method: 'POST', url: '/v1/tokens', headers: { ...bearer(aliceToken), 'content-type': 'application/json' }, payload });
    for (const description of ['a\\uD800b', 'a\\udfffb', 'end\\uDBFF']) {
      const refused = await post(`{"description":"${description}","scopes":["projects:read"]}`);
      expect(refused.statusCode, description).toBe(400);
      expect(refused.json().detail).toContain('unpaired surrogate');
    }
    expect((await post('{"description":"x","scopes":["projects:read"],"\\uD800":1}')).json().detail).toContain('unpaired surrogate');
    // Nested deep enough to overflow a recursive walk: refused for its depth, before any parse (not a misleading 400).
    const deep = await post(`{"description":"\\uD800","scopes":${'['.repeat(120_000)}${']'.repeat(120_000)}}`);
    expect([deep.statusCode, deep.json().detail]).toEqual([400, 'The body nests arrays and objects deeper than 64 levels.']);
    expect((await post(`{"description":"${'['.repeat(100)}","scopes":["projects:read"]}`)).statusCode).toBe(201); // brackets in a string
    const paired = await post('{"description":"launch \\uD83D\\uDE80","scopes":["projects:read"]}');
    expect(paired.statusCode).toBe(201);
    expect(paired.json().token.description).toBe('launch 🚀');
  });

  it('refuses an expired token with 401 and lists it as expired', async () => {
    const created = await createToken({ description: 'short-lived', scopes: ['projects:read'], expires_in_days: 1 });
    expect(created.statusCode).toBe(201);
    const { token, access_token: plaintext } = created.json();
    const expiresAt = new Date(token.expires_at).getTime();
    expect(expiresAt - new Date(token.created_at).getTime()).toBeGreaterThan(86_400_000 - 2_000);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(plaintext) })).statusCode).toBe(200);

    p.clockOffsetMs = expiresAt - Date.now();
    try {
      const refused = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(plaintext) });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('Bearer');
      expect(refused.json().detail).toBe('The access token has expired.');
      const listed = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(aliceToken) });
      expect(listed.json().tokens).toContainEqual({ ...token, state: 'expired' });
    } finally {
      p.clockOffsetMs = 0;
    }
  });

  it('answers 401 with a Bearer challenge without a token', async () => {
    const res = await p.app.inject({ method: 'GET', url: '/v1/tokens' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="cloudwright"');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 403 naming the scope a token lacks', async () => {
    const narrow = (await createToken({ description: 'read tokens only', scopes: ['tokens:read'] })).json().access_token;
    const res = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(narrow) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ title: 'Forbidden', status: 403, detail: 'This token lacks the scope projects:read.' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="cloudwright", error="insufficient_scope", scope="projects:read"');
    // tokens:read may list but not create.
    expect((await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(narrow) })).statusCode).toBe(200);
    const create = await createToken({ description: 'x', scopes: ['tokens:read'] }, narrow);
    expect(create.statusCode).toBe(403);
    expect(create.json().detail).toBe('This token lacks the scope tokens:write.');
  });

  it('never grants more than the calling token holds', async () => {
    const limited = (await createToken({ description: 'limited', scopes: ['tokens:write', 'apps:read'] })).json().access_token;
    const wider = await createToken({ description: 'wider', scopes: ['apps:write'] }, limited);
    expect(wider.statusCode).toBe(403);
    expect(wider.json().detail).toContain('apps:write');
    const admin = await createToken({ description: 'admin', scopes: ['admin'] });
    expect(admin.statusCode).toBe(403);
  });

  it.each([
    [{ description: 'x', scopes: ['nope:read'] }, /body\.scopes\.0 must be one of "projects:read", "projects:write"/],
    [{ description: 'x', scopes: [] }, /body\.scopes must NOT have fewer than 1 items/],
    [{ description: '', scopes: ['apps:read'] }, /body\.description/],
    [{ description: 'bell\u0007', scopes: ['apps:read'] }, /body\.description/],
    [{ description: 'x'.repeat(257), scopes: ['apps:read'] }, /body\.description/],
    [{ description: 'x', scopes: ['apps:read'], expires_in_days: 0 }, /body\.expires_in_days must be >= 1/],
    [{ description: 'x', scopes: ['apps:read'], expires_in_days: 366 }, /body\.expires_in_days must be <= 365/],
    [{ description: 'x', scopes: ['apps:read'], expires_in_days: '7' }, /body\.expires_in_days must be integer/],
    [{ description: 'x', scopes: ['apps:read'], owner: 'someone' }, /has an unknown property "owner"/],
    [{ scopes: ['apps:read'] }, /must have required property 'description'/],
  ])('refuses the invalid body %j with a 400 problem detail', async (body, detail) => {
    const res = await createToken(body);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail).toMatch(detail);
  });

  it("answers 404 for another user's token, which keeps working, and for unknown ids", async () => {
    const bob = await p.createUser();
    const bobToken = await p.tokenFor(bob, 'projects:read tokens:read');
    const bobTokenId = (await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(bobToken) })).json().tokens[0].token_id;

    const res = await p.app.inject({ method: 'DELETE', url: `/v1/tokens/${bobTokenId}`, headers: bearer(aliceToken) });
    expect(res.statusCode).toBe(404);
    const unknown = await p.app.inject({ method: 'DELETE', url: '/v1/tokens/tok-0000000000000000', headers: bearer(aliceToken) });
    expect(unknown.statusCode).toBe(404);
    expect(res.json()).toEqual(unknown.json());
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(bobToken) })).statusCode).toBe(200);
    // Nor does alice's listing show bob's tokens.
    const listed = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(aliceToken) });
    expect(listed.body).not.toContain(bobTokenId);

    const malformed = await p.app.inject({ method: 'DELETE', url: '/v1/tokens/Not_A_Name', headers: bearer(aliceToken) });
    expect(malformed.statusCode).toBe(400);
  });

  it("counts a token's refused requests (403) against its rate limit, and limits failed authentication by address", async () => {
    const limited = await platformApp({ rateLimit: { perSecond: 1, burst: 2 } });
    try {
      const user = await limited.createUser();
      const narrow = { authorization: `Bearer ${await limited.tokenFor(user, ['projects:read'])}` };
      const statuses = async (headers: Record<string, string>, n: number) => {
        const seen: number[] = [];
        for (let i = 0; i < n; i++) seen.push((await limited.app.inject({ method: 'GET', url: '/v1/tokens', headers })).statusCode);
        return seen;
      };
      expect(await statuses(narrow, 3)).toEqual([403, 403, 429]);
      expect(await statuses({ authorization: 'Bearer cwt_not-a-real-token' }, 3)).toEqual([401, 401, 429]);
    } finally {
      await limited.close();
    }
  });
});
