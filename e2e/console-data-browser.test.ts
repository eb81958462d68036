// The console's domain and database pages in headless Chromium against the real stack (cw-api, cw-operator,
// cw-db, moto's Route 53, a parent zone for `test.`): a domain is added, its delegation explained with the
// nameservers to copy, checked once delegated, and given a record; a database is created (its token shown
// once), queried in the SQL console, its usage charted, restored in place and undone. Each page passes axe-core
// and fits 320 px. A database's quotas show on its page with today's counts, and a reached quota says what it refuses.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashPassword } from '../src/auth/passwords.ts';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { loadKubeConnection } from '../src/kube/index.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { checkConsolePage, launchBrowser, pageErrors, signInToConsole } from './harness/browser.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { dnsTestEnv } from './harness/dns-env.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, s3Env, startOperator } from './harness/runtime-stack.ts';
import { certifyDomain, certifyHostname } from './harness/tls-certificates.ts';

const PASSWORD = 'a long passphrase for the console';
const running: Service[] = [];
let api: ApiServer | undefined;
let db: DatabaseServer | undefined;
let parent: ParentZoneServer | undefined;
let browser: Browser | undefined;
let member: MemberAccount;

beforeAll(async () => {
  const kubeconfig = inject('kubeconfig');
  member = await createMemberAccount(kubeconfig, 'console-data');
  await createProjectNamespace(kubeconfig, member.project);
  await new KubePasswordStore(loadKubeConnection(kubeconfig)).setPasswordHash(member.user, await hashPassword(PASSWORD));
  parent = await startParentZoneServer({ suffix: 'test' });
  db = await startDatabaseServer({ name: 'cw-db-console' });
  const dns = { CW_DNS_PARENT_SERVER: parent.address, CW_DNS_RESOLVER: parent.address, CW_DNS_TIMEOUT_MS: '2000', CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN };
  [api, , browser] = await Promise.all([
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...dnsTestEnv(), ...dns, CW_DB_URL: db.url } }),
    startOperator(member.project, running, { ...dnsTestEnv(), ...dns, ...db.clientEnv, CW_DB_USAGE_REFRESH_SECONDS: '1', CW_DB_USAGE_SAMPLE_SECONDS: '1' }),
    launchBrowser(),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop(), db?.stop(), ...running.map((s) => s.stop(5_000))]);
  await parent?.stop();
});

describe('the console’s domains and databases', () => {
  it('adds a domain, explains its delegation, checks it once delegated, and edits its records', { timeout: 90_000 }, async () => {
    if (!browser || !api || !parent) throw new Error('not started');
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());
    await signInToConsole(page, `${api.url}/console/projects/${member.project}/domains`, member.user, PASSWORD);
    const domain = `console-${randomBytes(3).toString('hex')}.test`;
    await page.getByLabel('Add a domain').fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: domain }).waitFor();
    await page.getByText('Pending delegation').waitFor();
    const copies = page.getByRole('button', { name: /^Copy ns-/ });
    await copies.first().waitFor();
    const nameservers = (await page.locator('.nameservers code').allTextContents()).filter(Boolean);
    expect(nameservers.length).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Add record' }).isDisabled()).toBe(true);
    await checkConsolePage(page, 'domain-pending');

    parent.delegate(domain, nameservers);
    await page.getByRole('button', { name: 'Check the delegation now' }).click();
    await page.getByText('Managed', { exact: true }).waitFor();
    await page.getByLabel('Name (@ for the apex)').fill('api');
    await page.getByLabel('Value').fill('192.0.2.10');
    await page.getByRole('button', { name: 'Add record' }).click();
    await page.getByRole('button', { name: `Edit A api.${domain}` }).click();
    await page.getByLabel(`New value of A api.${domain}`).fill('192.0.2.20');
    await page.getByRole('button', { name: `Save A api.${domain}` }).click();
    await page.getByRole('cell', { name: '192.0.2.20' }).waitFor();
    // The domain's certificate as the certificate controller leaves a failed order: the page says why.
    const refusal = `A CAA record of ${domain} allows only another CA.`;
    await certifyDomain(inject('kubeconfig'), member.project, domain, {
      state: 'Failed',
      lastError: { reason: 'CAAForbidden', message: refusal, at: '2026-11-29T10:00:00Z' },
      nextAttemptAt: '2026-11-29T11:00:00Z',
    });
    // Each round reloads the page and reads it once the domain has loaded (its Certificate heading shows).
    const certificateSays = async (text: string) => {
      await page.reload();
      await page.getByRole('heading', { name: 'Certificate' }).waitFor();
      return page.getByRole('region', { name: 'Certificate' }).getByText(text).count();
    };
    await expect.poll(() => certificateSays(refusal), { timeout: 15_000 }).toBe(1);
    await page.getByRole('cell', { name: '192.0.2.20' }).waitFor();
    await checkConsolePage(page, 'domain');
    await page.getByRole('button', { name: `Delete A api.${domain}` }).click();
    await page.getByText('No records yet.').waitFor();

    // An app served on a host name of the domain: attached with platform-written records, then finalized.
    const created = await fetch(`${api.url}/v1/projects/${member.project}/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
      body: '{"name":"web"}',
    });
    expect(created.status).toBe(201);
    await page.goto(`${api.url}/console/projects/${member.project}/apps/web`);
    await page.getByLabel('Attach a host name').fill(`www.${domain}`);
    await page.getByLabel('DNS').selectOption('managed_project_domain');
    await page.getByRole('button', { name: 'Attach' }).click();
    await page.getByText(`The platform wrote the records in ${domain}: finalize now.`).waitFor();
    await page.getByRole('button', { name: `Finalize www.${domain}` }).click();
    await expect
      .poll(async () => (await page.getByRole('button', { name: `Finalize www.${domain}` }).count()) === 0 && (await page.getByRole('cell', { name: 'active', exact: true }).count()) === 1, {
        timeout: 15_000,
      })
      .toBe(true);
    // Its certificate, issued (as the certificate controller writes it): the state and expiry date in the row.
    await certifyHostname(inject('kubeconfig'), member.project, `www.${domain}`, { state: 'Issued', notAfter: '2027-02-27T10:30:00Z', issuer: 'Pebble Intermediate CA' });
    const rowSays = async (text: string) => {
      await page.reload();
      await page.getByRole('cell', { name: `www.${domain}`, exact: true }).waitFor();
      return page.getByRole('cell', { name: text }).count();
    };
    await expect.poll(() => rowSays('issued, expires 2027-02-27'), { timeout: 15_000 }).toBe(1);
    await checkConsolePage(page, 'app-hostnames');
    // Detached, once the confirmation is accepted: its row goes.
    await page.getByRole('button', { name: `Detach www.${domain}` }).click();
    await expect.poll(async () => page.getByRole('cell', { name: `www.${domain}`, exact: true }).count(), { timeout: 15_000 }).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('creates a database with its token shown once, runs SQL in the console, and charts its usage', { timeout: 90_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    await signInToConsole(page, `${api.url}/console/projects/${member.project}/databases`, member.user, PASSWORD);
    await page.getByLabel('New database').fill('notes');
    await page.getByRole('button', { name: 'Create database' }).click();
    expect((await page.locator('code.secret').textContent()) ?? '').toMatch(/^cwdb_/);
    await page.getByRole('button', { name: 'I stored it' }).click();
    await page.getByRole('link', { name: 'notes' }).click();
    await page.getByRole('heading', { name: 'SQL console' }).waitFor();

    // A pasted script: split as sqlite3's shell splits it, run in one transaction, each answer shown. Waited for by
    // the insert's own text, or the restore point below could fall before the insert (ci-clone-116).
    await page.getByLabel('Statements').fill("create table notes(id integer primary key, body text);\ninsert into notes(body) values ('one'), ('two');");
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('status').filter({ hasText: 'Done: 2 rows changed' }).waitFor();
    expect(await page.getByRole('region', { name: 'SQL console' }).getByRole('status').allTextContents()).toEqual(['Done: 0 rows changed.', 'Done: 2 rows changed.']);
    // The restore below goes back to a whole second (the time input's precision) after these rows were written.
    const withRows = Math.ceil((Date.now() + 1) / 1000) * 1000;
    await page.getByLabel('Statements').fill('select id, body from notes order by id');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'SQL console' }).locator('td').allTextContents()).toEqual(['1', 'one', '2', 'two']);

    // The operator samples usage (every second here, kept every five minutes): reload until it is charted.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByRole('heading', { name: 'SQL console' }).waitFor();
          return page.getByRole('img', { name: /Rows written and size over the last day: [1-9]\d* rows written/ }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await checkConsolePage(page, 'database');

    // Rotate (the new token shown once), then delete: back to the list, without it.
    page.on('dialog', (dialog) => void dialog.accept());

    // Restore in place: the deleted rows come back, the undo point is shown, and undoing deletes them again.
    const rowCount = async (): Promise<string[]> => {
      await page.getByLabel('Statements').fill('select count(*) as n from notes');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByRole('region', { name: 'SQL console' }).locator('td').first().waitFor();
      return page.getByRole('region', { name: 'SQL console' }).locator('td').allTextContents();
    };
    await expect.poll(() => Date.now(), { timeout: 5_000 }).toBeGreaterThan(withRows);
    await page.getByLabel('Statements').fill('delete from notes');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('status').filter({ hasText: 'Done: 2 rows changed' }).waitFor();
    const localInput = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    // A time ahead of now is refused with a reason, before anything is asked of the API.
    await page.getByLabel(/Restore notes itself/).fill(localInput(Date.now() + 3_600_000));
    await page.getByRole('button', { name: 'Restore in place' }).click();
    await page
      .getByRole('region', { name: 'Restore in place' })
      .getByText(/is in the future/)
      .waitFor();
    // However long ago the page last rendered, a time up to now is taken (no upper bound on the input to go stale).
    await page.getByLabel(/Restore notes itself/).fill(localInput(withRows));
    await page.getByRole('button', { name: 'Restore in place' }).click();
    await page
      .getByRole('region', { name: 'Restore in place' })
      .getByText(/Undo point: \d{4}-/)
      .waitFor({ timeout: 60_000 });
    expect(await rowCount()).toEqual(['2']);
    await checkConsolePage(page, 'database-restored');
    await page.getByRole('button', { name: 'Undo this restore' }).click();
    await expect.poll(rowCount, { timeout: 30_000 }).toEqual(['0']);

    await page.getByRole('button', { name: 'Rotate the token' }).click();
    expect((await page.locator('code.secret').textContent()) ?? '').toMatch(/^cwdb_/);
    await page.getByRole('button', { name: 'I stored it' }).click();
    await page.getByRole('button', { name: 'Delete notes' }).click();
    await page.getByRole('heading', { name: /^Databases of / }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'notes' }).count(), { timeout: 15_000 }).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a database’s quotas with today’s counts, and what a reached quota refuses', { timeout: 60_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const created = await fetch(`${api.url}/v1/projects/${member.project}/databases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tally', limits: { rows_written_per_day: 2, rows_read_per_day: 1000 } }),
    });
    expect(created.status).toBe(201);
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    await signInToConsole(page, `${api.url}/console/projects/${member.project}/databases/tally`, member.user, PASSWORD);
    const quotas = page.getByRole('region', { name: 'Quotas' });
    await quotas.getByText('0 of 2').waitFor();
    await quotas.getByText(/of 1,000$/).waitFor();

    for (const [sql, done] of [
      ['create table t(n)', 'Done: 0 rows changed'],
      ['insert into t values (1), (2)', 'Done: 2 rows changed'],
    ] as const) {
      await page.getByLabel('Statements').fill(sql);
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByRole('status').filter({ hasText: done }).waitFor();
    }
    await page.getByLabel('Statements').fill('insert into t values (3)');
    await page.getByRole('button', { name: 'Run' }).click();
    await page
      .getByRole('region', { name: 'SQL console' })
      .getByText(/quota of 2 rows written per day/)
      .waitFor();

    // The operator refreshes the figures every second here: reload until the page says the quota is reached.
    await expect
      .poll(
        async () => {
          await page.reload();
          await quotas.getByText('Rows written today').waitFor();
          return (await quotas.getByRole('alert').allTextContents()).join('');
        },
        { timeout: 20_000 },
      )
      .toMatch(/^Quota reached: 2 rows written on \d{4}-\d{2}-\d{2} \(UTC\) reached the quota of 2 rows written per day: writes are refused until/);
    await quotas.getByText('2 of 2').waitFor();
    await checkConsolePage(page, 'database-quotas');
    expect(errors).toEqual([]);
    await page.close();
  });
});
