// Console sign-in for people on the Kubernetes-backed stores: passwords set by an administrator, sessions in
// an HttpOnly cookie that every route accepts, CSRF tokens on state-changing requests, idle and absolute
// expiry, sign-out and sign-out everywhere, and the per-user limit on failed attempts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '../../src/auth/index.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

const POLICY = { idleTimeoutSeconds: 120, maxAgeSeconds: 3600 };
const PASSWORD = 'correct horse battery staple';
let p: PlatformApp;
let admin: string;
let alice: string;
let adminToken: string;
let aliceToken: string;

beforeAll(async () => {
  p = await platformApp({ sessionPolicy: POLICY });
  [admin, alice] = await Promise.all([p.createUser({ admin: true }), p.createUser()]);
  await p.createProject(alice);
  [adminToken, aliceToken] = await Promise.all([
    p.tokenFor(admin, ['admin']),
    p.tokenFor(
      alice,
      SCOPE_NAMES.filter((s) => s !== 'admin'),
    ),
  ]);
  const set = await p.app.inject({ method: 'PUT', url: `/v1/users/${alice}/password`, headers: bearer(adminToken), payload: { password: PASSWORD } });
  expect(set.statusCode, set.body).toBe(204);
});
afterAll(() => p?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface SignedIn {
  cookie: string;
  csrf: string;
  setCookie: string;
}

/** A user with a password of their own (each test signs in its own: sign-ins per user are limited). */
async function person(): Promise<string> {
  const user = await p.createUser();
  const set = await p.app.inject({ method: 'PUT', url: `/v1/users/${user}/password`, headers: bearer(adminToken), payload: { password: PASSWORD } });
  expect(set.statusCode, set.body).toBe(204);
  return user;
}

async function signIn(user = alice, password = PASSWORD): Promise<SignedIn> {
  const res = await p.app.inject({ method: 'POST', url: '/v1/session', payload: { user, password } });
  expect(res.statusCode, res.body).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0] ?? '', csrf: res.json().session.csrf_token, setCookie };
}

describe('passwords', () => {
  it('are set by administrators only, at least 12 characters', async () => {
    expect((await p.app.inject({ method: 'PUT', url: `/v1/users/${alice}/password`, headers: bearer(aliceToken), payload: { password: PASSWORD } })).statusCode).toBe(403);
    const short = await p.app.inject({ method: 'PUT', url: `/v1/users/${alice}/password`, headers: bearer(adminToken), payload: { password: 'too short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json().detail).toContain('at least 12 characters');
    expect((await p.app.inject({ method: 'PUT', url: '/v1/users/nobody-here/password', headers: bearer(adminToken), payload: { password: PASSWORD } })).statusCode).toBe(404);
  });

  it('set by an administrator end every session the user had (a reset cuts off a stolen session)', async () => {
    const user = await person();
    const [first, second] = [await signIn(user), await signIn(user)];
    expect((await p.app.inject({ method: 'GET', url: '/v1/session', headers: { cookie: first.cookie } })).statusCode).toBe(200);
    const reset = await p.app.inject({ method: 'PUT', url: `/v1/users/${user}/password`, headers: bearer(adminToken), payload: { password: `${PASSWORD} 2` } });
    expect(reset.statusCode).toBe(204);
    for (const { cookie } of [first, second]) expect((await p.app.inject({ method: 'GET', url: '/v1/session', headers: { cookie } })).statusCode).toBe(401);
    expect((await signIn(user, `${PASSWORD} 2`)).cookie).toMatch(/^cw_session=/);
  });
});

describe('signing in', () => {
  it('answers a wrong password and an unknown user alike, and sets an HttpOnly, SameSite=Strict cookie on success', async () => {
    const wrong = await p.app.inject({ method: 'POST', url: '/v1/session', payload: { user: alice, password: 'not the password at all' } });
    const unknown = await p.app.inject({ method: 'POST', url: '/v1/session', payload: { user: 'nobody-at-all', password: PASSWORD } });
    expect([wrong.statusCode, unknown.statusCode]).toEqual([401, 401]);
    expect(wrong.json().detail).toBe(unknown.json().detail);
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const { setCookie, csrf } = await signIn();
    // The session, and the device cookie that lets this browser sign in while others are held back (a year).
    expect(setCookie).toMatch(/^cw_session=cwt_[A-Za-z0-9]{40}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict,cw_device=[\w-]+\.[\w-]+; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lets the cookie do what the member can, with the CSRF token on every change', async () => {
    const { cookie, csrf } = await signIn(alice);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } })).statusCode).toBe(200);
    const session = await p.app.inject({ method: 'GET', url: '/v1/session', headers: { cookie } });
    expect(session.json().session).toMatchObject({ user_id: alice, csrf_token: csrf, idle_timeout_seconds: 120 });

    const forged = await p.app.inject({ method: 'POST', url: '/v1/tokens', headers: { cookie }, payload: { description: 'x', scopes: ['projects:read'] } });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().detail).toContain('x-csrf-token');
    const wrongToken = await p.app.inject({
      method: 'POST',
      url: '/v1/tokens',
      headers: { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` },
      payload: { description: 'x', scopes: ['projects:read'] },
    });
    expect(wrongToken.statusCode).toBe(403);
    const made = await p.app.inject({
      method: 'POST',
      url: '/v1/tokens',
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { description: 'from the console', scopes: ['projects:read'], expires_in_days: 90 },
    });
    expect(made.statusCode, made.body).toBe(201);
    // A token a person makes in the console lives as long as asked, not as long as the session.
    expect(Date.parse(made.json().token.expires_at) - Date.now()).toBeGreaterThan(89 * 86_400_000);
  });

  it('approves a device sign-in as the signed-in person: the device’s token is not capped at the session', async () => {
    const { cookie, csrf } = await signIn(alice);
    const code = (await p.app.inject({ method: 'POST', url: '/v1/device/code', payload: { scope: 'apps:read' } })).json();
    const review = await p.app.inject({ method: 'GET', url: `/v1/device/requests/${code.user_code}`, headers: { cookie } });
    expect(review.json().device_request.scopes).toEqual(['apps:read']);
    const approved = await p.app.inject({ method: 'POST', url: '/v1/device/approve', headers: { cookie, 'x-csrf-token': csrf }, payload: { user_code: code.user_code, scopes: ['apps:read'] } });
    expect(approved.statusCode, approved.body).toBe(204);
    const token = await p.app.inject({ method: 'POST', url: '/v1/device/token', payload: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: code.device_code } });
    expect(token.statusCode, token.body).toBe(200);
    expect(token.json().expires_in).toBeUndefined();
  });

  it('accepts only a console session in the cookie, never a personal access token', async () => {
    const res = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: `cw_session=${aliceToken}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toContain('no console session');
  });

  it('is used only through its cookie: as a bearer token, or as two cookies, it is refused', async () => {
    const { cookie } = await signIn(await person());
    const token = cookie.slice('cw_session='.length);
    const asBearer = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(token) });
    expect(asBearer.statusCode).toBe(401);
    expect(asBearer.json().detail).toContain('only through its cookie');
    const twice = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: `${cookie}; ${cookie}` } });
    expect(twice.statusCode).toBe(401);
  });

  it('expires after the idle timeout unless used, and after the maximum age whatever happens', async () => {
    const user = await person();
    const { cookie } = await signIn(user);
    p.clockOffsetMs = 70_000;
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } })).statusCode).toBe(200);
    // That use was recorded (at most once a minute): idle time now counts from it.
    await expect.poll(async () => (await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(aliceToken) })).json().tokens.length).toBeGreaterThan(0);
    p.clockOffsetMs = 170_000;
    await expect.poll(async () => (await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } })).statusCode, { timeout: 5_000 }).toBe(200);
    p.clockOffsetMs = 300_000;
    const idle = await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } });
    expect(idle.statusCode).toBe(401);
    expect(idle.json().detail).toBe('The session expired after 2 minutes without use; sign in again.');

    p.clockOffsetMs = 0;
    const fresh = await signIn(user);
    p.clockOffsetMs = 3_600_000;
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: fresh.cookie } })).statusCode).toBe(401);
    p.clockOffsetMs = 0;
  });

  it('signs out one session, or every session while personal tokens stay', async () => {
    const user = await person();
    const one = await signIn(user);
    const out = await p.app.inject({ method: 'DELETE', url: '/v1/session', headers: { cookie: one.cookie, 'x-csrf-token': one.csrf } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^cw_session=; Max-Age=0;/);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: one.cookie } })).statusCode).toBe(401);

    const [a, b] = [await signIn(user), await signIn(user)];
    // A token that may not manage the user's credentials (a CI token, say) cannot end them either.
    const narrow = await p.app.inject({ method: 'DELETE', url: '/v1/sessions', headers: bearer(await p.tokenFor(user, ['projects:read'])) });
    expect([narrow.statusCode, narrow.json().detail]).toEqual([403, 'This token lacks the scope tokens:write.']);
    const everywhere = await p.app.inject({ method: 'DELETE', url: '/v1/sessions', headers: { cookie: a.cookie, 'x-csrf-token': a.csrf } });
    expect(everywhere.json().ended).toBeGreaterThanOrEqual(2);
    for (const s of [a, b]) expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: s.cookie } })).statusCode).toBe(401);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(aliceToken) })).statusCode).toBe(200);
  });

  it('counts every attempt before checking the password, so concurrent guesses cannot slip past', async () => {
    const user = await person();
    const guesses = await Promise.all(Array.from({ length: 8 }, () => p.app.inject({ method: 'POST', url: '/v1/session', payload: { user, password: 'guessing guessing' } })));
    expect(guesses.filter((g) => g.statusCode === 401)).toHaveLength(5);
    expect(guesses.filter((g) => g.statusCode === 429)).toHaveLength(3);
  });

  it('changes one’s own password only signed in and with the current one, ending the other sessions', async () => {
    const bob = await person();
    const bobToken = await p.tokenFor(bob, ['projects:read']);
    const withToken = await p.app.inject({ method: 'PUT', url: '/v1/user/password', headers: bearer(bobToken), payload: { current_password: PASSWORD, new_password: 'a brand new passphrase' } });
    expect(withToken.statusCode).toBe(403);
    const elsewhere = await signIn(bob);
    const s = await signIn(bob);
    const refused = await p.app.inject({
      method: 'PUT',
      url: '/v1/user/password',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
      payload: { current_password: 'wrong wrong wrong', new_password: 'a brand new passphrase' },
    });
    expect(refused.statusCode).toBe(403);
    const changed = await p.app.inject({
      method: 'PUT',
      url: '/v1/user/password',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
      payload: { current_password: PASSWORD, new_password: 'a brand new passphrase' },
    });
    expect(changed.statusCode).toBe(204);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: elsewhere.cookie } })).statusCode).toBe(401);
    expect((await p.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: s.cookie } })).statusCode).toBe(200);
  });

  it('keeps a person signing in from their own browser while guesses from many addresses hold everyone else back', async () => {
    const dave = await person();
    const device = /(?:^|,\s*)(cw_device=[^;]+)/.exec((await signIn(dave)).setCookie)?.[1];
    expect(device).toMatch(/^cw_device=[\w-]+\.[\w-]+$/);
    const from = (address: string, password: string, cookie?: string) =>
      p.app.inject({ method: 'POST', url: '/v1/session', remoteAddress: address, headers: cookie ? { cookie } : {}, payload: { user: dave, password } });
    // Five guesses from each of eight addresses: the user's allowance from everywhere (thirty) is spent.
    const guesses = [];
    for (let a = 1; a <= 8; a++) for (let i = 0; i < 5; i++) guesses.push((await from(`203.0.113.${a}`, 'guessing guessing')).statusCode);
    expect(guesses.filter((status) => status === 429).length).toBeGreaterThan(0);
    // A browser without the cookie is held back, the right password or not; a forged cookie is no cookie.
    expect((await from('198.51.100.7', PASSWORD)).statusCode).toBe(429);
    expect((await from('198.51.100.7', PASSWORD, 'cw_device=forged.cookie')).statusCode).toBe(429);
    // The person's own browser signs in; guesses sent with a stolen-looking cookie of another user count as none.
    const own = await from('198.51.100.7', PASSWORD, device);
    expect(own.statusCode, own.body).toBe(200);
    const other = await person();
    const theirs = /(?:^|,\s*)(cw_device=[^;]+)/.exec((await signIn(other)).setCookie)?.[1];
    expect((await from('198.51.100.8', PASSWORD, theirs)).statusCode).toBe(429);
  });

  it('holds back a user after five attempts from one address', async () => {
    const carol = await p.createUser();
    const attempt = () => p.app.inject({ method: 'POST', url: '/v1/session', payload: { user: carol, password: 'guessing guessing' } });
    for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(401);
    const held = await attempt();
    expect(held.statusCode).toBe(429);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
  });
});
