// The device sign-in's verification page in a real browser (headless Chromium): a person who is not signed in
// signs in there with their password and approves `cw login`'s code for themself, pasting no token; a wrong
// password is explained on the page; the page passes axe-core and its Content-Security-Policy lets its own
// script run and nothing else.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../src/auth/passwords.ts';
import { loadKubeConnection } from '../src/kube/index.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { createMemberAccount, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { expectAccessible, launchBrowser, pageErrors } from './harness/browser.ts';

const PASSWORD = 'a long passphrase for tests';
let api: ApiServer | undefined;
let browser: Browser | undefined;
let member: MemberAccount;

beforeAll(async () => {
  member = await createMemberAccount(inject('kubeconfig'), 'device-browser');
  // The password as an administrator would set it (PUT /v1/users/{id}/password), through the same store.
  await new KubePasswordStore(loadKubeConnection(inject('kubeconfig'))).setPasswordHash(member.user, await hashPassword(PASSWORD));
  [api, browser] = await Promise.all([startApiServer({ kubeconfig: inject('kubeconfig'), stateDir: inject('stateDir') }), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop()]);
});

async function startDeviceSignIn(): Promise<{ user_code: string; device_code: string; verification_uri_complete: string }> {
  const res = await fetch(`${api?.url}/v1/device/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'projects:read apps:read' }) });
  expect(res.status).toBe(200);
  return (await res.json()) as { user_code: string; device_code: string; verification_uri_complete: string };
}

describe('the device verification page', () => {
  it('signs a person in with their password and approves the code for them, with no token pasted', { timeout: 60_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const grant = await startDeviceSignIn();
    const page = await browser.newPage();
    const errors = pageErrors(page);
    await page.goto(grant.verification_uri_complete);
    await page.getByRole('group', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'signed out');

    await page.getByLabel('User').fill(member.user);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#signin-out').textContent()).toBe('Unknown user or wrong password.');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#who').textContent()).toBe(`Signed in as ${member.user}.`);
    expect(await page.getByLabel(/access token/).isVisible()).toBe(false);

    await page.getByRole('button', { name: 'Review the request' }).click();
    await expect.poll(() => page.locator('#scopes li').allTextContents()).toEqual(['projects:read', 'apps:read']);
    await expectAccessible(page, 'reviewing');
    await page.getByRole('button', { name: 'Approve these scopes' }).click();
    await expect.poll(() => page.locator('#out').textContent()).toContain('Approved.');

    const token = await fetch(`${api.url}/v1/device/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: grant.device_code }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const me = (await (await fetch(`${api.url}/v1/user`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { user: { user_id: string }; token: { scopes: string[] } };
    expect(me.user.user_id).toBe(member.user);
    expect(me.token.scopes.sort()).toEqual(['apps:read', 'projects:read']);
    // The session is in an HttpOnly cookie: nothing the page's scripts can read holds a credential.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
