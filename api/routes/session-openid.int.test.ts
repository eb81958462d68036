// Console sign-in through a real OpenID provider: panva's certified `oidc-provider`, run by this test on a
// loopback port with a confidential client, its development login form driven over HTTP as a browser would.
// Covers the code flow with PKCE, matching users (by linked account, by verified email, created), and the
// refusals: a state that does not match, an unverified email, no user allowed to be created.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/apis/v1alpha1/user.ts';
import { OpenIdClient } from '../../src/auth/openid.ts';
import { MAX_SESSIONS_PER_USER } from '../../src/auth/sessions.ts';
import { objectClient } from '../../src/kube/index.ts';
import { testConnection } from '../../src/kube/testing/test-kube.ts';
import { USERS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

const REDIRECT = 'http://cw.test/v1/session/openid/callback';
/** The provider's accounts: subject → claims. */
const accounts = new Map<string, Record<string, unknown>>();
let server: Server;
let issuer: string;
let p: PlatformApp;
let strict: PlatformApp;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'cloudwright', client_secret: 'a-client-secret-for-tests', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, sub: string) => (accounts.has(sub) ? { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) } : undefined),
  });
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  const client = () => new OpenIdClient({ issuer, clientId: 'cloudwright', clientSecret: 'a-client-secret-for-tests', redirectUri: REDIRECT, name: 'Test IdP' });
  [p, strict] = await Promise.all([platformApp({ openId: { client: client(), createUsers: true } }), platformApp({ openId: { client: client(), createUsers: false } })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([p?.close(), strict?.close()]);
  server?.close();
});

/** Cookies by name, as a browser keeps them for one site. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(setCookie: string | string[] | null | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Signs in as `subject` the way a browser does: start at the API, log in and consent at the provider's
 * development form, come back to the callback. Returns the callback's answer and the API's cookies.
 */
async function signInAs(app: PlatformApp, subject: string, tamper?: (callback: URL) => void) {
  const api = new Jar();
  const idp = new Jar();
  const start = await app.app.inject({ method: 'GET', url: '/v1/session/openid?return_to=/console/apps' });
  expect(start.statusCode, start.body).toBe(302);
  api.take(start.headers['set-cookie'] as string | string[]);
  let url = new URL(String(start.headers.location));
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  // Follow the provider's redirects, submitting its login and consent forms, until it sends us back.
  for (let step = 0; step < 12 && url.origin === issuer; step++) {
    let res = await fetch(url, { redirect: 'manual', headers: { cookie: idp.header() } });
    idp.take(res.headers.getSetCookie());
    if (res.status === 200) {
      const html = await res.text();
      const action = /action="([^"]+)"/.exec(html)?.[1] ?? '';
      const form: Record<string, string> = html.includes('name="login"') ? { prompt: 'login', login: subject, password: 'anything' } : { prompt: 'consent' };
      res = await fetch(new URL(action, issuer), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: idp.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
      idp.take(res.headers.getSetCookie());
    }
    url = new URL(res.headers.get('location') ?? '', url);
  }
  expect(url.href.startsWith(REDIRECT)).toBe(true);
  tamper?.(url);
  const back = await app.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { cookie: api.header() } });
  api.take(back.headers['set-cookie'] as string | string[]);
  return { back, api };
}

function account(claims: Record<string, unknown>): string {
  const subject = `sub-${randomBytes(4).toString('hex')}`;
  accounts.set(subject, claims);
  return subject;
}

describe('signing in through OpenID Connect', () => {
  it('creates a user for a new account, lands in the console signed in, and finds the same user next time', async () => {
    const email = `ada-${randomBytes(3).toString('hex')}@example.com`;
    const subject = account({ email, email_verified: true, name: 'Ada Lovelace' });
    const { back, api } = await signInAs(p, subject);
    expect(back.statusCode, back.body).toBe(302);
    expect(back.headers.location).toBe('/console/apps');
    const me = await p.app.inject({ method: 'GET', url: '/v1/user', headers: { cookie: api.header() } });
    expect(me.statusCode).toBe(200);
    expect(me.json().user).toMatchObject({ user_id: expect.stringMatching(new RegExp(`^${email.split('@')[0]}-[0-9a-f]{6}$`)), display_name: 'Ada Lovelace', email });
    const user = await objectClient<User>(testConnection(), USERS).get('', me.json().user.user_id);
    expect(user?.spec.identities).toEqual([{ issuer, subject }]);

    const again = await signInAs(p, subject);
    const meAgain = await p.app.inject({ method: 'GET', url: '/v1/user', headers: { cookie: again.api.header() } });
    expect(meAgain.json().user.user_id).toBe(me.json().user.user_id);
  });

  it('holds a person to MAX_SESSIONS_PER_USER sessions however often they sign in: the oldest end', { timeout: 60_000 }, async () => {
    const subject = account({ email: `loop-${randomBytes(3).toString('hex')}@example.com`, email_verified: true });
    const signIns = [];
    for (let i = 0; i < MAX_SESSIONS_PER_USER + 2; i++) signIns.push(await signInAs(p, subject));
    const last = signIns.at(-1)!.api.header();
    const listed = await p.app.inject({ method: 'GET', url: '/v1/tokens', headers: { cookie: last } });
    expect(listed.statusCode, listed.body).toBe(200);
    const sessions = (listed.json().tokens as Array<{ state: string; description: string }>).filter((t) => t.description.startsWith('Console sign-in') && t.state === 'active');
    expect(sessions).toHaveLength(MAX_SESSIONS_PER_USER);
    // Two sessions were ended (the oldest: sign-ins in the same second are as old as each other); the newest works.
    const answers = await Promise.all(signIns.map(async ({ api }) => (await p.app.inject({ method: 'GET', url: '/v1/user', headers: { cookie: api.header() } })).statusCode));
    expect(answers.filter((status) => status === 401)).toHaveLength(2);
    expect(answers.at(-1)).toBe(200);
  });

  it('links an existing user by verified email, never by an unverified one', async () => {
    const existing = await p.createUser();
    const email = `${existing}@example.org`;
    await objectClient<User>(testConnection(), USERS).patch('', existing, { spec: { email } });
    await expect
      .poll(
        async () =>
          (await p.app.inject({ method: 'GET', url: `/v1/users/${existing}`, headers: { authorization: `Bearer ${await p.tokenFor(await p.createUser({ admin: true }), ['admin'])}` } })).json().user
            ?.email,
      )
      .toBe(email);

    const unverified = await signInAs(strict, account({ email, email_verified: false }));
    expect(unverified.back.statusCode).toBe(403);
    expect(unverified.back.json().detail).toContain('No Cloudwright user is linked');

    const verified = await signInAs(strict, account({ email, email_verified: true }));
    expect(verified.back.statusCode, verified.back.body).toBe(302);
    const me = await strict.app.inject({ method: 'GET', url: '/v1/user', headers: { cookie: verified.api.header() } });
    expect(me.json().user.user_id).toBe(existing);

    // Another account of the provider given the same address later (a recycled address) takes nobody over.
    const recycled = await signInAs(strict, account({ email, email_verified: true }));
    expect(recycled.back.statusCode).toBe(403);
    expect(recycled.back.json().detail).toContain('linked to another account of this provider');
  });

  it('never gives a created user an id someone chose: an outsider cannot take the id an invitation was sent to (review-163 F1)', async () => {
    // An owner invites the id a colleague will have once they sign in (dana-…, from dana-…@corp.example); an
    // outsider whose provider account has that local part at another domain signs in first.
    const owner = await p.createUser();
    const project = await p.createProject(owner);
    const expected = `dana-${randomBytes(3).toString('hex')}`;
    const invited = await p.app.inject({
      method: 'PUT',
      url: `/v1/projects/${project}/members/${expected}`,
      headers: { authorization: `Bearer ${await p.tokenFor(owner, ['projects:write'])}` },
      payload: { role: 'member' },
    });
    expect(invited.statusCode, invited.body).toBe(202);
    const outsider = await signInAs(p, account({ email: `${expected}@elsewhere.example`, email_verified: true }));
    expect(outsider.back.statusCode, outsider.back.body).toBe(302);
    const me = (await p.app.inject({ method: 'GET', url: '/v1/user', headers: { cookie: outsider.api.header() } })).json().user as { user_id: string };
    expect(me.user_id).not.toBe(expected);
    const theirs = await p.app.inject({ method: 'GET', url: '/v1/user/invitations', headers: { cookie: outsider.api.header() } });
    expect(theirs.json().invitations).toEqual([]);
  });

  it('refuses a callback whose state does not match what the browser started with', async () => {
    const { back, api } = await signInAs(p, account({ email: 'eve@example.com', email_verified: true }), (url) => url.searchParams.set('state', 'forged'));
    expect(back.statusCode).toBe(401);
    expect(back.json().detail).toMatch(/refused/);
    expect(api.cookies.has('cw_session')).toBe(false);
  });

  it('refuses a return path that leaves the site, and a callback without the pending cookie', async () => {
    for (const away of ['//evil.example/', '/\\evil.example/', '/%E4%B8%AD']) expect((await p.app.inject({ method: 'GET', url: `/v1/session/openid?return_to=${away}` })).statusCode).toBe(400);
    const orphan = await p.app.inject({ method: 'GET', url: '/v1/session/openid/callback?code=x&state=y' });
    expect(orphan.statusCode).toBe(400);
    expect(orphan.json().detail).toContain('start it again');
    const methods = await p.app.inject({ method: 'GET', url: '/v1/session/methods' });
    expect(methods.json()).toEqual({ password: true, openid: { name: 'Test IdP', url: '/v1/session/openid' } });
  });
});
