// An app's traffic, deploy history and live logs in the console, in headless Chromium against the real stack:
// a cw-runtime replica serving a worker deployed through the API (some of whose requests fail), cw-operator
// recording the deploy history, cw-api merging the replica's metrics window and streaming its logs. The
// charts show the requests the test sent, with the deploys marked; the logs tab receives a request live,
// filters, pauses and resumes; the project overview puts the failing app first. Each page passes axe-core and
// fits 320 px.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashPassword } from '../src/auth/passwords.ts';
import { loadKubeConnection } from '../src/kube/index.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { checkConsolePage, expectAccessible, launchBrowser, pageErrors, signInToConsole } from './harness/browser.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, packWorker, s3Env, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const PASSWORD = 'a long passphrase for the console';
const kubeconfig = inject('kubeconfig');
const running: Service[] = [];
let api: ApiServer | undefined;
let browser: Browser | undefined;
let runtime: Runtime;
let member: MemberAccount;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'console-traffic');
  await createProjectNamespace(kubeconfig, member.project);
  await new KubePasswordStore(loadKubeConnection(kubeconfig)).setPasswordHash(member.user, await hashPassword(PASSWORD));
  const env = { CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN };
  const started = await Promise.all([
    startRuntime('cw-runtime-console-traffic', member.project, running),
    // The replica reports in the project's namespace here: the API finds it there (logs and metrics).
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...env, POD_NAMESPACE: member.project } }),
    launchBrowser(),
    startOperator(member.project, running, env),
  ]);
  [runtime, api, browser] = [started[0], started[1], started[2]];
  if ((await fetch(`${api.url}/console/`)).status !== 200) throw new Error('cw-api serves no console: build it first (make console)');
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop(), ...running.map((s) => s.stop(5_000))]);
});

async function call(method: string, path: string, body?: string | Uint8Array, contentType = 'application/json'): Promise<Response> {
  return fetch(`${api?.url}/v1/projects/${member.project}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body }),
  });
}

/** A worker that logs each request and answers 500 on /fail; `version` tells its builds apart. */
function worker(version: string): Buffer {
  return packWorker(
    `export default { fetch(request) { const path = new URL(request.url).pathname; console.log('${version} serving ' + path);` +
      ` return new Response('${version}', { status: path === '/fail' ? 500 : 200 }); } };\n`,
  );
}

async function deploy(app: string, version: string): Promise<string> {
  const res = await call('POST', `/apps/${app}/deployments`, new Uint8Array(worker(version)), 'application/octet-stream');
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { build_id: string }).build_id;
}

/** The deploy history as the API has it, once its newest entry is `buildId` served (the operator's part). */
async function servedInHistory(app: string, buildId: string): Promise<void> {
  await expect
    .poll(async () => ((await (await call('GET', `/apps/${app}/deployments`)).json()) as { deployments: { build_id: string; served_at?: string }[] }).deployments[0], {
      timeout: 30_000,
      interval: 100,
    })
    .toMatchObject({ build_id: buildId, served_at: expect.any(String) });
}

type Totals = { requests: number; errors: number; error_ratio: number };

/**
 * The app's last hour as the API merges it from the replica, once every request sent is in it: what the
 * console must show. A replica reads its counts at most once a second for callers, so two reads more than a
 * second apart that agree hold every request answered before the first.
 */
async function settledTotals(app: string): Promise<Totals> {
  let last: Totals | undefined;
  let settled: Totals | undefined;
  await expect
    .poll(
      async () => {
        const res = await call('GET', `/apps/${app}/metrics?since=1h`);
        const now = ((await res.json()) as { metrics: { totals: Totals } }).metrics.totals;
        settled = last && last.requests === now.requests && last.errors === now.errors ? now : undefined;
        last = now;
        return settled !== undefined;
      },
      { timeout: 30_000, interval: 1500 },
    )
    .toBe(true);
  return settled as Totals;
}

/** A ratio in percent as the console writes it: one decimal (two under 10 %), without trailing zeros. */
const figure = (ratio: number) =>
  (ratio * 100)
    .toFixed(ratio < 0.1 ? 2 : 1)
    .replace(/\.?0+$/, '')
    .replace('.', '\\.');

const hostOf = (app: string) => `${app}.${member.project}.${BASE_DOMAIN}`;

async function traffic(app: string, ok: number, failed: number): Promise<void> {
  for (let i = 0; i < ok; i++) expect((await send(runtime.port, hostOf(app), `/ok-${i}`)).status).toBe(200);
  for (let i = 0; i < failed; i++) expect((await send(runtime.port, hostOf(app), '/fail')).status).toBe(500);
}

async function openApp(page: Page, app: string): Promise<void> {
  await page.goto(`${api?.url}/console/projects/${member.project}/apps/${app}`);
  await page.getByRole('heading', { name: app, level: 1 }).waitFor();
}

describe('traffic, deploy history and logs in the console', () => {
  it('charts real requests with the deploys marked, lists the history with a rollback, streams logs live, and puts the failing app first', { timeout: 180_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    for (const name of ['web', 'calm']) expect((await call('POST', '/apps', JSON.stringify({ name }))).status).toBe(201);
    const first = await deploy('web', 'v1');
    await servedInHistory('web', first);
    const second = await deploy('web', 'v2');
    await servedEverywhere([runtime], hostOf('web'), 'v2');
    await servedInHistory('web', second);
    await deploy('calm', 'calm');
    await servedEverywhere([runtime], hostOf('calm'), 'calm');
    // 30 answers, 10 of them 500, besides the probes above waiting for v2 to be served. `calm` answers everything.
    await traffic('web', 20, 10);
    await traffic('calm', 5, 0);
    const web = await settledTotals('web');
    expect(web.requests).toBeGreaterThanOrEqual(30);
    expect(web.errors).toBeGreaterThanOrEqual(10);
    const shown = `${web.requests} requests, ${figure(web.error_ratio)} % errors`;

    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors = pageErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());
    await signInToConsole(page, `${api.url}/console/projects/${member.project}/apps`, member.user, PASSWORD);

    // The overview: the failing app first, with its last hour's figures.
    const rows = page.getByRole('table', { name: /Apps/ }).getByRole('row');
    await expect.poll(async () => (await rows.nth(1).innerText()).replace(/\s+/g, ' '), { timeout: 15_000 }).toMatch(new RegExp(`^web Serving ${web.requests} ${figure(web.error_ratio)} % \\d+ ms `));
    expect((await rows.nth(2).innerText()).replace(/\s+/g, ' ')).toMatch(/^calm Serving \d+ 0 % /);
    // Under the apps, what the project's builds use of its quotas: the deploys above are stored.
    const builds = page.getByRole('region', { name: 'Builds' });
    await expect.poll(async () => (await builds.innerText()).replace(/\s+/g, ' '), { timeout: 5_000 }).toMatch(/Stored builds [1-9][\d,]* of 2,147,483,648 bytes/);
    await checkConsolePage(page, 'apps-traffic');

    // The app's page opens on its charts: the figures of the requests sent, the deploys marked.
    await openApp(page, 'web');
    const traffic_ = page.getByRole('region', { name: 'Traffic' });
    await traffic_.getByText(new RegExp(`^Last hour: ${shown}, p95 [\\d.]+ ms, p99 [\\d.]+ ms\\. 1 of 1 runtime replicas answered\\.$`)).waitFor({ timeout: 15_000 });
    expect(await traffic_.getByRole('img', { name: new RegExp(`^Requests per second ${web.requests} requests; peak [\\d.]+/s at `) }).count()).toBe(1);
    expect(await traffic_.getByRole('img', { name: new RegExp(`^Error ratio \\(5xx\\) ${figure(web.error_ratio)} % of requests failed; worst `) }).count()).toBe(1);
    expect(await traffic_.getByRole('img', { name: /^Latency \(p95, p99\) p95 [\d.]+ ms, p99 [\d.]+ ms over the span/ }).count()).toBe(1);
    const marks = traffic_.getByRole('list');
    await marks.getByText(`Deploy of build ${second} by user:${member.user}`).waitFor();
    await marks.getByText(`Deploy of build ${first} by user:${member.user}`).waitFor();
    // Each mark is drawn on each chart.
    expect(await traffic_.locator('svg g.mark.deploy').count()).toBe(6);

    // The deploy history: the newest active, each served, who deployed it; a rollback from its row.
    const history = page.getByRole('region', { name: 'Deploy history' });
    const historyRows = history.getByRole('row');
    await expect.poll(() => historyRows.count(), { timeout: 5_000 }).toBe(3);
    expect((await historyRows.nth(1).innerText()).replace(/\s+/g, ' ')).toMatch(new RegExp(`^${second} ?active .* ${member.user} — in [\\d.]+ s —`));
    expect((await historyRows.nth(2).innerText()).replace(/\s+/g, ' ')).toMatch(new RegExp(`^${first} .* ${member.user} — in [\\d.]+ s — Roll back to ${first}$`));
    await checkConsolePage(page, 'app-traffic');
    // The figures behind a chart, as a table.
    await traffic_.getByText('Error ratio (5xx): the figures').click();
    await expect.poll(() => traffic_.getByRole('cell', { name: /^[1-9][\d.]* %$/ }).count(), { timeout: 5_000 }).toBeGreaterThan(0);
    await expectAccessible(page, 'a chart’s figures');
    await history.getByRole('button', { name: `Roll back to ${first}` }).click();
    await history.getByText(`Build ${first} is active again`).waitFor();
    await servedInHistory('web', first);
    await expect.poll(() => historyRows.count(), { timeout: 15_000 }).toBe(4);
    await history.getByText('rollback', { exact: true }).waitFor();
    // The rollback joins the marks on the charts.
    await traffic_.getByText(`Rollback of build ${first} by user:${member.user}`).waitFor();

    // A day's span: the same requests, on a day's axis.
    await traffic_.getByRole('button', { name: 'Last day' }).click();
    await traffic_.getByText(new RegExp(`^Last day: ${shown}`)).waitFor();
    expect(await traffic_.getByRole('button', { name: 'Last day' }).getAttribute('aria-pressed')).toBe('true');

    // The logs tab: a request answered now shows up without a reload.
    await page.getByRole('navigation', { name: 'App web' }).getByRole('link', { name: 'Logs' }).click();
    const logs = page.getByRole('region', { name: 'Logs' });
    await logs.getByText('Live from 1 runtime replica.').waitFor({ timeout: 15_000 });
    const entries = logs.getByRole('list', { name: 'Requests, newest first' });
    await send(runtime.port, hostOf('web'), '/live-one');
    await entries.getByText('log: v1 serving /live-one').waitFor({ timeout: 10_000 });
    await checkConsolePage(page, 'app-logs');

    // Paused: what arrives is held and counted, shown on resume.
    await logs.getByRole('button', { name: 'Pause' }).click();
    await send(runtime.port, hostOf('web'), '/while-paused');
    await logs.getByText('Paused: 1 new entry held.').waitFor({ timeout: 10_000 });
    expect(await entries.getByText('log: v1 serving /while-paused').count()).toBe(0);
    await logs.getByRole('button', { name: 'Resume' }).click();
    await entries.getByText('log: v1 serving /while-paused').waitFor();

    // Filters, applied by the API: only 5xx answers, then only a text.
    await logs.getByLabel('5xx').check();
    await logs.getByRole('button', { name: 'Apply filters' }).click();
    await logs.getByText('Live from 1 runtime replica.').waitFor({ timeout: 15_000 });
    await send(runtime.port, hostOf('web'), '/fine');
    await send(runtime.port, hostOf('web'), '/fail');
    await entries.getByText('log: v1 serving /fail').first().waitFor({ timeout: 10_000 });
    expect(await entries.getByText('log: v1 serving /fine').count()).toBe(0);
    await logs.getByLabel('5xx').uncheck();
    await logs.getByLabel(/^Text in the URL/).fill('needle');
    await logs.getByRole('button', { name: 'Apply filters' }).click();
    await logs.getByText('Live from 1 runtime replica.').waitFor({ timeout: 15_000 });
    await send(runtime.port, hostOf('web'), '/hay');
    await send(runtime.port, hostOf('web'), '/needle');
    await entries.getByText('log: v1 serving /needle').waitFor({ timeout: 10_000 });
    expect(await entries.getByText('log: v1 serving /hay').count()).toBe(0);
    expect(errors).toStrictEqual([]);
  });
});
