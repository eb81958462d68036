import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';
import { MAX_FORM_PARAMETERS, parseForm } from './device.ts';

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let p: PlatformApp;
let alice: string;
let aliceToken: string;

beforeAll(async () => {
  // More sign-ins than the API lets one address start in a burst: the limit has a test of its own below.
  p = await platformApp({ deviceSignInRateLimit: { perSecond: 100, burst: 100 } });
  alice = await p.createUser();
  await p.createProject(alice);
  aliceToken = await p.tokenFor(alice, 'projects:read tokens:write apps:read');
});
afterAll(() => p?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function startSignIn(scope = 'projects:read tokens:read') {
  const res = await p.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scope, client_id: 'cw' } });
  expect(res.statusCode).toBe(200);
  return res.json() as { device_code: string; user_code: string; verification_uri_complete: string };
}

/** A poll as RFC 8628 clients send it: a form body. */
function poll(deviceCode: string) {
  return p.app.inject({
    method: 'POST',
    url: '/v1/device/token',
    headers: FORM,
    payload: new URLSearchParams({ grant_type: GRANT_TYPE, device_code: deviceCode, client_id: 'cw' }).toString(),
  });
}

function decide(decision: 'approve' | 'deny', userCode: string, token = aliceToken) {
  return p.app.inject({ method: 'POST', url: `/v1/device/${decision}`, headers: bearer(token), payload: { user_code: userCode } });
}

describe('device sign-in (RFC 8628) over HTTP, on the Kubernetes-backed stores', () => {
  it('runs end to end: pending, slow_down, approve, token once, then invalid_grant', async () => {
    const started = await p.app.inject({ method: 'POST', url: '/v1/device/code', headers: FORM, payload: 'scope=projects%3Aread+tokens%3Aread&client_id=cw&client_secret=ignored&audience=' });
    expect(started.statusCode).toBe(200);
    expect(started.headers['cache-control']).toBe('no-store');
    const code = started.json();
    expect(code).toEqual({
      device_code: expect.stringMatching(/^[0-9A-Za-z]{43}$/),
      user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verification_uri: 'http://cw.test/device',
      verification_uri_complete: `http://cw.test/device?user_code=${code.user_code}`,
      expires_in: 900,
      interval: 5,
    });

    const pending = await poll(code.device_code);
    expect(pending.statusCode).toBe(400);
    expect(pending.headers['content-type']).toMatch(/^application\/json/);
    expect(pending.headers['cache-control']).toBe('no-store');
    expect(pending.json()).toEqual({ error: 'authorization_pending', error_description: expect.any(String) });

    const tooFast = await poll(code.device_code);
    expect(tooFast.statusCode).toBe(400);
    expect(tooFast.json().error).toBe('slow_down');

    // People type codes loosely: lower case, no dash.
    const approved = await decide('approve', code.user_code.replace('-', '').toLowerCase());
    expect(approved.statusCode).toBe(204);
    expect((await decide('approve', code.user_code)).statusCode).toBe(204);

    const granted = await poll(code.device_code);
    expect(granted.statusCode).toBe(200);
    expect(granted.headers['cache-control']).toBe('no-store');
    const body = granted.json();
    expect(body).toEqual({ access_token: expect.stringMatching(/^cwt_/), token_type: 'Bearer', scope: 'projects:read tokens:read' });

    const projects = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(body.access_token) });
    expect(projects.statusCode).toBe(200);
    expect(projects.json().projects).toHaveLength(1);
    const me = await p.app.inject({ method: 'GET', url: '/v1/user', headers: bearer(body.access_token) });
    expect(me.json().user.user_id).toBe(alice);
    const listed = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(body.access_token) });
    expect(listed.json().tokens).toContainEqual(expect.objectContaining({ description: expect.stringMatching(/^Device sign-in on /), scopes: ['projects:read', 'tokens:read'] }));

    const reused = await poll(code.device_code);
    expect(reused.statusCode).toBe(400);
    expect(reused.json().error).toBe('invalid_grant');
  });

  it('answers access_denied after a denial, and 409 to a later approval', async () => {
    const code = await startSignIn();
    const bob = await p.createUser();
    expect((await decide('deny', code.user_code, await p.tokenFor(bob, ['tokens:write']))).statusCode).toBe(204);
    const denied = await poll(code.device_code);
    expect(denied.statusCode).toBe(400);
    expect(denied.json().error).toBe('access_denied');
    const late = await decide('approve', code.user_code);
    expect(late.statusCode).toBe(409);
    expect(late.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('mints nothing for a sign-in whose approver was deleted and created again under the same id before the poll', async () => {
    const admin = await p.tokenFor(await p.createUser({ admin: true }), 'admin');
    const bob = await p.createUser();
    const code = await startSignIn();
    expect((await decide('approve', code.user_code, await p.tokenFor(bob, ['tokens:write', 'projects:read', 'tokens:read']))).statusCode).toBe(204);
    expect((await p.app.inject({ method: 'DELETE', url: `/v1/users/${bob}`, headers: bearer(admin) })).statusCode).toBe(204);
    const again = await p.app.inject({ method: 'POST', url: '/v1/users', headers: bearer(admin), payload: { user_id: bob } });
    expect(again.statusCode, again.body).toBe(201);
    const polled = await poll(code.device_code);
    expect(polled.statusCode).toBe(400);
    expect(polled.json()).toEqual({ error: 'access_denied', error_description: 'The user who approved this sign-in no longer exists.' });
  });

  it('limits a person’s guesses of user codes (RFC 8628 §5.1): 10 that name no sign-in, then 429 with Retry-After, for them alone', async () => {
    const guesser = await p.tokenFor(await p.createUser(), ['tokens:write']);
    for (let i = 0; i < 10; i++) expect((await p.app.inject({ method: 'GET', url: '/v1/device/requests/ZZZZ-ZZZZ', headers: bearer(guesser) })).statusCode).toBe(404);
    const limited = await decide('approve', 'ZZZZ-ZZZZ', guesser);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json().detail).toMatch(/Too many user codes that name no sign-in/);
    // Another person is not held back by it.
    expect((await decide('deny', 'ZZZZ-ZZZZ', await p.tokenFor(await p.createUser(), ['tokens:write']))).statusCode).toBe(404);
  });

  it('refuses to approve scopes the approving token does not hold (403), and unknown codes (404)', async () => {
    const code = await startSignIn('projects:read databases:write');
    const res = await decide('approve', code.user_code);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toContain('databases:write');
    expect((await poll(code.device_code)).json().error).toBe('authorization_pending');

    const unknown = await decide('approve', 'BBBB-BBBB');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ title: 'Not Found', status: 404, detail: expect.stringContaining('not valid or has expired') });
  });

  it('shows what a request asks for before it is answered, and approves only the scopes reviewed', async () => {
    const code = await startSignIn('projects:read apps:read');
    const review = () => p.app.inject({ method: 'GET', url: `/v1/device/requests/${code.user_code.toLowerCase()}`, headers: bearer(aliceToken) });
    const shown = await review();
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ device_request: { user_code: code.user_code, scopes: ['projects:read', 'apps:read'], expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
    // Reviewing needs what approving needs.
    const readOnly = await p.tokenFor(alice, ['projects:read']);
    expect((await p.app.inject({ method: 'GET', url: `/v1/device/requests/${code.user_code}`, headers: bearer(readOnly) })).statusCode).toBe(403);
    expect((await p.app.inject({ method: 'GET', url: '/v1/device/requests/BBBB-BBBB', headers: bearer(aliceToken) })).statusCode).toBe(404);

    // Approving other scopes than those reviewed is refused; the request stays pending.
    const approveWith = (scopes: string[]) => p.app.inject({ method: 'POST', url: '/v1/device/approve', headers: bearer(aliceToken), payload: { user_code: code.user_code, scopes } });
    const other = await approveWith(['projects:read']);
    expect(other.statusCode).toBe(409);
    expect(other.json().detail).toBe('This sign-in request asks for projects:read apps:read, not the scopes reviewed; review it again before approving.');
    expect((await poll(code.device_code)).json().error).toBe('authorization_pending');
    expect((await approveWith(['projects:read', 'apps:read'])).statusCode).toBe(204);
    expect((await review()).statusCode).toBe(409);
    expect((await p.app.inject({ method: 'POST', url: '/v1/device/deny', headers: bearer(aliceToken), payload: { user_code: code.user_code, scopes: [] } })).statusCode).toBe(400);
  });

  it('needs a bearer token with tokens:write to approve or deny', async () => {
    const code = await startSignIn();
    const anonymous = await p.app.inject({ method: 'POST', url: '/v1/device/approve', payload: { user_code: code.user_code } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="cloudwright"');
    const readOnly = await p.tokenFor(alice, ['projects:read']);
    const res = await decide('deny', code.user_code, readOnly);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe('This token lacks the scope tokens:write.');
  });

  it('answers a bad device authorization request with problem details carrying the OAuth error members', async () => {
    const unknown = await p.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scope: 'projects:read nope' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const refused = unknown.json();
    expect(refused).toMatchObject({ title: 'Bad Request', status: 400, error: 'invalid_scope' });
    expect(refused.detail).toMatch(/Unknown scope "nope"/);
    expect(refused.error_description).toBe(refused.detail);
    const blank = await p.app.inject({ method: 'POST', url: '/v1/device/code', headers: FORM, payload: 'scope=+' });
    expect(blank.json()).toMatchObject({ status: 400, error: 'invalid_scope', detail: 'At least one scope is required.' });
    const list = await p.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scopes: ['projects:read'] } });
    expect(list.statusCode).toBe(400);
    expect(list.json()).toMatchObject({ error: 'invalid_request', error_description: list.json().detail });
    expect(list.json().detail).toMatch(/additional properties|required property 'scope'|unknown property/);
    const malformed = await p.app.inject({ method: 'POST', url: '/v1/device/code', headers: { 'content-type': 'application/json' }, payload: '{"scope":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ status: 400, error: 'invalid_request' });
    // Other refusals stay plain problem details.
    const wrongType = await p.app.inject({ method: 'POST', url: '/v1/device/code', headers: { 'content-type': 'application/xml' }, payload: '<scope/>' });
    expect(wrongType.statusCode).toBe(415);
    expect(wrongType.json()).not.toHaveProperty('error');
  });

  it.each([
    ['an unknown device code', `grant_type=${encodeURIComponent(GRANT_TYPE)}&device_code=nope`, FORM, 'invalid_grant'],
    ['another grant type', 'grant_type=client_credentials&device_code=x', FORM, 'unsupported_grant_type'],
    ['a missing device code', `grant_type=${encodeURIComponent(GRANT_TYPE)}`, FORM, 'invalid_request'],
    ['a repeated parameter', `grant_type=${encodeURIComponent(GRANT_TYPE)}&device_code=a&device_code=b`, FORM, 'invalid_request'],
    ['a grant type without a value (as if not sent)', 'grant_type=&device_code=a', FORM, 'invalid_request'],
    ['unknown parameters, which are ignored', `grant_type=${encodeURIComponent(GRANT_TYPE)}&device_code=nope&client_secret=x&scope=apps%3Aread&__proto__=x`, FORM, 'invalid_grant'],
    ['more parameters than any request has', `grant_type=${encodeURIComponent(GRANT_TYPE)}&device_code=a${'&a'.repeat(MAX_FORM_PARAMETERS)}`, FORM, 'invalid_request'],
    ['malformed JSON', '{"grant_type":', { 'content-type': 'application/json' }, 'invalid_request'],
    ['JSON', JSON.stringify({ grant_type: GRANT_TYPE, device_code: 'nope' }), { 'content-type': 'application/json' }, 'invalid_grant'],
  ])('answers %s with an OAuth error body', async (_name, payload, headers, error) => {
    const res = await p.app.inject({ method: 'POST', url: '/v1/device/token', headers, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error, error_description: expect.any(String) });
  });

  it('refuses bodies over 8 KiB on the public OAuth routes (413), as form or JSON, before parsing them', async () => {
    const started = performance.now();
    const repeated = await p.app.inject({ method: 'POST', url: '/v1/device/token', headers: FORM, payload: `${'a&'.repeat(100_000)}a` });
    expect(repeated.statusCode).toBe(413);
    const json = await p.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scope: 'a '.repeat(5000) } });
    expect(json.statusCode).toBe(413);
    expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    // Just under the limit, as many repeats as fit: refused as a client error, in linear time.
    const under = await p.app.inject({ method: 'POST', url: '/v1/device/code', headers: FORM, payload: `${'a&'.repeat(4000)}a` });
    expect(under.statusCode).toBe(400);
    expect(under.json().detail).toBe(`a form body has at most ${MAX_FORM_PARAMETERS} parameters`);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('accepts form bodies only on the OAuth routes', async () => {
    const res = await p.app.inject({ method: 'POST', url: '/v1/tokens', headers: { ...FORM, ...bearer(aliceToken) }, payload: 'description=x&scopes=apps%3Aread' });
    expect(res.statusCode).toBe(415);
    const approve = await p.app.inject({ method: 'POST', url: '/v1/device/approve', headers: { ...FORM, ...bearer(aliceToken) }, payload: 'user_code=BBBB-BBBB' });
    expect(approve.statusCode).toBe(415);
  });

  it('serves a self-contained verification page with the code filled in and escaped', async () => {
    const code = await startSignIn();
    const page = await p.app.inject({ method: 'GET', url: new URL(code.verification_uri_complete).pathname + new URL(code.verification_uri_complete).search });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain(`value="${code.user_code}"`);
    // Approving starts with a review of the scopes asked for; the inline script is the one the policy allows.
    expect(page.body).toContain('Review the request');
    const script = /<script>([\s\S]*)<\/script>/.exec(page.body)?.[1] ?? '';
    expect(script).toContain("'v1/device/requests/'");
    expect(page.headers['content-security-policy']).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(page.body).not.toMatch(/(src|href)="?https?:/);
    const hostile = await p.app.inject({ method: 'GET', url: '/device?user_code=%22%3E%3Cscript%3E' });
    expect(hostile.body).toContain('value="&#34;&#62;&#60;script&#62;"');
  });
});

describe('starting device sign-ins', () => {
  it("is limited per address far below the API's own limit: 10 at once, then one every 10 s", async () => {
    const limited = await platformApp();
    try {
      const starts = [];
      for (let i = 0; i < 11; i++) starts.push(await limited.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scope: 'projects:read' } }));
      expect(starts.slice(0, 10).map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      const refused = starts[10];
      expect(refused?.statusCode).toBe(429);
      // The next start is 10 s after the burst, less what the eleven requests took on a busy machine.
      const retryAfter = Number(refused?.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(5);
      expect(retryAfter).toBeLessThanOrEqual(10);
      expect(refused?.json().detail).toBe(`Rate limit of 6 requests per minute exceeded; retry in ${retryAfter} s.`);
      // Other routes keep the caller's ordinary budget.
      expect((await limited.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await limited.app.inject({ method: 'POST', url: '/v1/device/token', payload: { grant_type: GRANT_TYPE, device_code: 'nope' } })).statusCode).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('parseForm', () => {
  it('keeps single values as strings, repeated ones as arrays, and __proto__ as a plain field', () => {
    const parsed = parseForm('a=1&b=2&b=3&__proto__=x&scope=a+b');
    expect(parsed).toEqual({ a: '1', b: ['2', '3'], ['__proto__']: 'x', scope: 'a b' });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toContain('__proto__');
  });

  it('refuses more than MAX_FORM_PARAMETERS parameters as a client error, however often one repeats', () => {
    expect(Object.keys(parseForm('a=1&'.repeat(MAX_FORM_PARAMETERS).slice(0, -1)))).toEqual(['a']);
    const started = performance.now();
    expect(() => parseForm('a&'.repeat(200_000))).toThrow(expect.objectContaining({ statusCode: 400, message: `a form body has at most ${MAX_FORM_PARAMETERS} parameters` }));
    // Refused as soon as the count passes the limit, without reading on: well under a second on a quiet
    // machine; room for one where CI starts two test files at once.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
