// The web console in a real browser (headless Chromium): a person signs in with their password, finds their
// project and app, rolls the app back to an earlier build, edits its environment, binds a database to it and
// unbinds it, invites a member and withdraws the invitation, reads the
// audit trail, makes a token (shown once, and working), revokes it (and it stops working), and signs out. An
// invitation is answered by the invitee in a session of their own: accepted (the project is then theirs to
// open), declined, or found withdrawn.
// Every page passes axe-core, fits a 320 px wide screen, runs under its strict Content-Security-Policy with no
// error, and keeps no credential where scripts can read it. CW_UPDATE_SCREENSHOTS=1 writes the screenshots
// docs/console.md shows.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashPassword } from '../src/auth/passwords.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { DATABASES } from '../src/platform/resources.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { checkConsolePage, launchBrowser, pageErrors, signInToConsole } from './harness/browser.ts';
import { packWorker, s3Env } from './harness/runtime-stack.ts';

const PASSWORD = 'a long passphrase for the console';
let api: ApiServer | undefined;
let browser: Browser | undefined;
let member: MemberAccount;
const builds: string[] = [];

beforeAll(async () => {
  const kubeconfig = inject('kubeconfig');
  member = await createMemberAccount(kubeconfig, 'console');
  await createProjectNamespace(kubeconfig, member.project);
  await new KubePasswordStore(loadKubeConnection(kubeconfig)).setPasswordHash(member.user, await hashPassword(PASSWORD));
  // A Database to bind (no operator runs here: binding needs only that the project has it).
  await objectClient<Database>(loadKubeConnection(kubeconfig), DATABASES).create({ metadata: { name: 'orders', namespace: member.project }, spec: { displayName: 'orders' } });
  [api, browser] = await Promise.all([startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: s3Env() }), launchBrowser()]);
  if ((await fetch(`${api.url}/console/`)).status !== 200) throw new Error('cw-api serves no console: build it first (make console)');
  // An app with two builds, deployed through the API as `cw deploy` would.
  await call('POST', `/v1/projects/${member.project}/apps`, { name: 'shop', https: { redirect_http: true, hsts: { max_age_seconds: 600 } } });
  for (const version of ['v1', 'v2']) {
    const res = await fetch(`${api.url}/v1/projects/${member.project}/apps/shop/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(packWorker(`export default { fetch: () => new Response('${version}') };\n`)),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    builds.push(((await res.json()) as { build_id: string }).build_id);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop()]);
});

async function call(method: string, path: string, body?: unknown, token = member.token): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${api?.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** The users a project's pending invitations name, as the API lists them to its owner. */
async function invitees(project: string): Promise<string[]> {
  return ((await call('GET', `/v1/projects/${project}/invitations`)).body as { invitations: { user_id: string }[] }).invitations.map((i) => i.user_id);
}

async function memberIds(project: string): Promise<string[]> {
  return ((await call('GET', `/v1/projects/${project}/members`)).body as { members: { user_id: string }[] }).members.map((m) => m.user_id);
}

describe('the console', () => {
  it('signs in, rolls an app back, edits its environment, binds a database, makes and revokes a token, and signs out', { timeout: 90_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());

    const response = await page.goto(`${api.url}/console/`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in to Cloudwright' }).waitFor();
    await checkConsolePage(page, 'sign-in');
    await page.getByLabel('User').fill(member.user);
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Unknown user or wrong password.' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByRole('link', { name: /Test console/ }).waitFor();
    await checkConsolePage(page, 'projects');
    await page.getByRole('link', { name: /Test console/ }).click();
    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();
    await page.getByRole('button', { name: `Roll back to ${builds[0]}` }).waitFor();
    // Each build's recorded deploy options (both deployed without any): what a rollback applies again.
    expect(await page.getByRole('cell', { name: 'no extra host names' }).count()).toBe(2);
    expect(await page.getByRole('cell', { name: 'default: 100 requests at once' }).count()).toBe(2);
    // Its HTTPS settings, as the API has them.
    await page.getByText('Redirected (308) on hosts with a certificate').waitFor();
    await page.getByText('max-age=600', { exact: true }).waitFor();
    await checkConsolePage(page, 'app');

    // Roll back from the console: the API's app points at the first build again.
    await page.getByRole('button', { name: `Roll back to ${builds[0]}` }).click();
    await page.getByText(`Build ${builds[0]} is active again`).waitFor();
    expect(((await call('GET', `/v1/projects/${member.project}/apps/shop`)).body as { app: { active_build_id: string } }).app.active_build_id).toBe(builds[0]);

    // The environment: a plain value is stored (secrets are database links, made with the CLI).
    await page.getByLabel('Key').fill('GREETING');
    await page.getByLabel('Value').fill('hello-from-the-console');
    await page.getByRole('button', { name: 'Save variable' }).click();
    await page.getByRole('button', { name: 'Remove GREETING' }).waitFor();

    // A database bound from the console: listed with its variables, the token nowhere; unbound again.
    await page.getByLabel('Database', { exact: true }).fill('orders');
    await page.getByLabel('Token', { exact: true }).selectOption('full');
    await page.getByRole('button', { name: 'Bind database' }).click();
    await page.getByRole('button', { name: 'Unbind DATABASE' }).waitFor();
    await page.getByText('URL of database orders').waitFor();
    await page.getByText('Linked to database orders (full token, not shown)').waitFor();
    expect((await call('GET', `/v1/projects/${member.project}/apps/shop/database-bindings`)).body).toStrictEqual({
      bindings: [{ name: 'DATABASE', database: 'orders', access: 'full', variables: { url: 'DATABASE_URL', token: 'DATABASE_TOKEN' } }],
    });
    await checkConsolePage(page, 'app-bound');
    await page.getByRole('button', { name: 'Unbind DATABASE' }).click();
    await expect.poll(() => page.getByText('URL of database orders').count(), { timeout: 10_000 }).toBe(0);
    expect((await call('GET', `/v1/projects/${member.project}/apps/shop/database-bindings`)).body).toStrictEqual({ bindings: [] });

    // Members: another user invited (not added: nobody becomes a member without accepting), listed as pending
    // with who invited them, and the invitation withdrawn.
    const other = await createMemberAccount(inject('kubeconfig'), 'console-peer');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('Invite a user').fill(other.user);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Invitation sent: ${other.user} becomes a member once they accept it` })
      .waitFor();
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByRole('row', { name: new RegExp(`${other.user} member ${member.user}`) }).waitFor();
    expect(await page.getByRole('button', { name: `Remove ${other.user}` }).count()).toBe(0);
    expect(await invitees(member.project)).toEqual([other.user]);
    await checkConsolePage(page, 'members');
    await page.getByRole('button', { name: `Withdraw the invitation of ${other.user}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `The invitation of ${other.user} is withdrawn.` })
      .waitFor();
    await page.getByText('No invitation is pending.').waitFor();
    expect(await pending.count()).toBe(0);
    expect(await invitees(member.project)).toEqual([]);
    expect(await memberIds(member.project)).toEqual([member.user]);

    // The audit trail: what was just done, by whom and how (the console), filtered by resource type; no value.
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('cell', { name: 'member.uninvite' }).waitFor();
    expect(await page.getByRole('cell', { name: `${member.user} (console)` }).count()).toBeGreaterThanOrEqual(4);
    await checkConsolePage(page, 'audit');
    await page.getByLabel('Resource type').selectOption('app');
    // The filtered page replaces the whole one: both tell apart only once it has.
    await expect.poll(() => page.getByRole('cell', { name: 'member.uninvite' }).count()).toBe(0);
    await expect.poll(() => page.getByRole('cell', { name: 'app.deploy' }).count()).toBe(2);
    await page.getByRole('cell', { name: 'app.rollback' }).waitFor();
    expect(await page.content()).not.toContain('hello-from-the-console');

    // A token, shown once, that works until it is revoked.
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel('What it is for').fill('from the console test');
    await page.getByLabel('projects:read').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const plaintext = (await page.locator('code.secret').textContent()) ?? '';
    expect(plaintext).toMatch(/^cwt_[A-Za-z0-9]{40}$/);
    await checkConsolePage(page, 'tokens');
    expect((await call('GET', '/v1/projects', undefined, plaintext)).status).toBe(200);
    await page.getByRole('button', { name: 'I stored it' }).click();
    expect(await page.locator('code.secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke from the console test' }).click();
    await expect.poll(async () => (await call('GET', '/v1/projects', undefined, plaintext)).status).toBe(401);

    // Nothing a script can read holds a credential, and a request without the CSRF token is refused.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    expect(
      await page.evaluate(`fetch('/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"description":"x","scopes":["projects:read"]}' }).then((r) => r.status)`),
    ).toBe(403);

    // The session ended elsewhere (signed out everywhere, as from another device): the next request goes back
    // to the sign-in page, saying why.
    expect(((await call('DELETE', '/v1/sessions')).body as { ended: number }).ended).toBeGreaterThanOrEqual(1);
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByText('Your session ended').waitFor();
    await page.getByLabel('User').fill(member.user);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Cloudwright' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Cloudwright' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('an owner invites someone from the members page; in their own session they accept it and find the project, or decline it', { timeout: 90_000 }, async () => {
    const started = browser;
    const url = api?.url;
    if (!started || !url) throw new Error('not started');
    const kubeconfig = inject('kubeconfig');
    const invitee = await createMemberAccount(kubeconfig, 'console-invitee');
    await new KubePasswordStore(loadKubeConnection(kubeconfig)).setPasswordHash(invitee.user, await hashPassword(PASSWORD));
    // Each person in a browser context of their own: their own cookie jar, so their own session.
    const contexts = await Promise.all([0, 1].map(() => started.newContext({ viewport: { width: 1100, height: 800 } })));
    const [owner, guest] = await Promise.all(contexts.map((c) => c.newPage()));
    if (!owner || !guest) throw new Error('no pages');
    const errors = [owner, guest].map((p) => pageErrors(p));
    for (const p of [owner, guest]) p.on('dialog', (dialog) => void dialog.accept());
    const projectName = 'Test console-project';
    const accept = guest.getByRole('button', { name: `Accept the invitation to ${projectName}` });
    const projectLink = guest.getByRole('link', { name: projectName, exact: true });
    // Their own project: once it is listed, so would the invitation's be if it were theirs.
    const ownLink = guest.getByRole('link', { name: 'Test console-invitee-project', exact: true });

    await signInToConsole(owner, `${url}/console/projects/${member.project}/members`, member.user, PASSWORD);
    await signInToConsole(guest, `${url}/console/`, invitee.user, PASSWORD);
    await ownLink.waitFor();
    expect(await projectLink.count()).toBe(0);
    expect(await accept.count()).toBe(0);

    const invite = async () => {
      await owner.getByLabel('Invite a user').fill(invitee.user);
      await owner.getByRole('button', { name: 'Invite', exact: true }).click();
      await owner
        .getByRole('status')
        .filter({ hasText: `Invitation sent: ${invitee.user} becomes a member` })
        .waitFor();
      // The invitee's projects page, loaded again: the console is told of nothing new by itself.
      await guest.goto(`${url}/console/`);
      await accept.waitFor();
    };

    // Withdrawn while the invitee's page still offers it: their Accept is refused with the API's reason.
    await invite();
    await guest.getByText(`${member.project} · member, invited by ${member.user}`).waitFor();
    await checkConsolePage(guest, 'projects-invited');
    await owner.getByRole('button', { name: `Withdraw the invitation of ${invitee.user}` }).click();
    await owner.getByRole('status').filter({ hasText: 'is withdrawn' }).waitFor();
    await accept.click();
    await guest
      .getByRole('alert')
      .filter({ hasText: `You have no pending invitation to ${member.project}.` })
      .waitFor();
    await expect.poll(() => accept.count()).toBe(0);
    await ownLink.waitFor();
    expect(await projectLink.count()).toBe(0);
    expect(await memberIds(member.project)).toEqual([member.user]);

    // Invited again and accepted: the project is listed, and opens.
    await invite();
    await accept.click();
    await guest
      .getByRole('status')
      .filter({ hasText: `You are now a member of ${projectName}.` })
      .waitFor();
    await projectLink.waitFor();
    await expect.poll(() => accept.count()).toBe(0);
    expect((await memberIds(member.project)).sort()).toEqual([member.user, invitee.user].sort());
    expect(((await call('GET', '/v1/user/invitations', undefined, invitee.token)).body as { invitations: unknown[] }).invitations).toEqual([]);
    await projectLink.click();
    await guest.getByRole('link', { name: 'shop' }).waitFor();

    // The owner sees them as a member now, no longer pending, and offers them the owner role: an invitation too, which
    // leaves them a member until they accept it (nobody is made an owner without consent). Lowering a role is at once.
    await owner.reload();
    await owner.getByRole('button', { name: `Offer ${invitee.user} the owner role` }).click();
    await owner
      .getByRole('status')
      .filter({ hasText: `Invitation sent: ${invitee.user} becomes an owner once they accept it` })
      .waitFor();
    expect(await invitees(member.project)).toEqual([invitee.user]);
    await guest.goto(`${url}/console/`);
    await accept.click();
    await guest
      .getByRole('status')
      .filter({ hasText: `You are now an owner of ${projectName}.` })
      .waitFor();
    await owner.reload();
    await owner.getByRole('button', { name: `Make ${invitee.user} a member` }).click();
    await owner
      .getByRole('status')
      .filter({ hasText: `${invitee.user} is now a member.` })
      .waitFor();
    await owner.getByRole('button', { name: `Offer ${invitee.user} the owner role` }).waitFor();
    await owner.getByText('No invitation is pending.').waitFor();
    expect(await owner.getByRole('table', { name: 'Pending invitations' }).count()).toBe(0);
    await owner.getByRole('button', { name: `Remove ${invitee.user}` }).click();
    await expect.poll(() => memberIds(member.project)).toEqual([member.user]);
    await invite();
    await guest.getByRole('button', { name: `Decline the invitation to ${projectName}` }).click();
    await guest
      .getByRole('status')
      .filter({ hasText: `You declined the invitation to ${projectName}.` })
      .waitFor();
    await expect.poll(() => accept.count()).toBe(0);
    await ownLink.waitFor();
    expect(await projectLink.count()).toBe(0);
    expect(await invitees(member.project)).toEqual([]);
    expect(await memberIds(member.project)).toEqual([member.user]);
    await owner.reload();
    await owner.getByRole('button', { name: `Remove ${member.user}` }).waitFor();
    await owner.getByText('No invitation is pending.').waitFor();
    expect(await owner.getByRole('table', { name: 'Pending invitations' }).count()).toBe(0);

    expect(errors.flat()).toEqual([]);
    await Promise.all(contexts.map((c) => c.close()));
  });
});
