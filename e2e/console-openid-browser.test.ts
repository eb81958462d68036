// Signing in to the console through an OpenID provider, in headless Chromium: the certified `oidc-provider`
// runs in this test; the browser goes from the console's button to its login and consent pages and comes back
// signed in as a new user made from the account's verified email. The provider's pages are its development
// ones, so only the console's own pages are checked with axe-core.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { expectAccessible, launchBrowser, pageErrors } from './harness/browser.ts';
import { freePort } from './harness/process.ts';

const SECRET = 'a-client-secret-for-the-browser-test';
const email = `grace-${randomBytes(3).toString('hex')}@example.com`;
let server: Server | undefined;
let api: ApiServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'cloudwright', client_secret: SECRET, redirect_uris: [`${apiUrl}/v1/session/openid/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, email, email_verified: true, name: 'Grace Hopper' }) }),
  });
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  [api, browser] = await Promise.all([
    startApiServer({
      kubeconfig: inject('kubeconfig'),
      stateDir: inject('stateDir'),
      port,
      env: { CW_API_PUBLIC_URL: apiUrl, CW_OIDC_ISSUER: issuer, CW_OIDC_CLIENT_ID: 'cloudwright', CW_OIDC_CLIENT_SECRET: SECRET, CW_OIDC_NAME: 'Test IdP', CW_OIDC_CREATE_USERS: 'true' },
    }),
    launchBrowser(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop()]);
  server?.close();
});

describe('console sign-in through OpenID Connect', () => {
  it('goes to the provider and comes back signed in as the user made from the verified email', { timeout: 60_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(`${api.url}/console/tokens`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    await expectAccessible(page, 'sign-in with a provider');
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();

    // The provider's development login and consent pages.
    await page.locator('input[name="login"]').fill(`grace-${randomBytes(2).toString('hex')}`);
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page
      .locator('button[type="submit"]')
      .filter({ hasText: /continue/i })
      .click();

    await page.waitForURL(`${api.url}/console/tokens`);
    await page.getByRole('heading', { name: 'Access tokens' }).waitFor();
    await expect.poll(() => page.locator('.who').textContent()).toMatch(new RegExp(`^${email.split('@')[0]}-[0-9a-f]{6}$`));
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(errors).toEqual([]);
    await page.close();
  });
});
