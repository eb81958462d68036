// Push to deploy in the console, in headless Chromium against the real stack (cw-api, cw-operator with its local
// build runner, cw-git serving stock git and marking each push): an app is connected to a repository through
// the form (a wrong repository refused with the API's reason), a push to main shows up as a build whose log the
// page follows live until it ends, and a branch push shows up as a preview app saying what it previews and the
// commit it serves. The build command waits for a gate file the test creates, so the page is seen following a
// build that is still running. Each page passes axe-core and fits 320 px.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { findCondition } from '../src/conditions/index.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { REPOSITORIES } from '../src/platform/resources.ts';
import type { RunningService } from '../git-server/serve.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { checkConsolePage, launchBrowser, pageErrors, signInToConsole } from './harness/browser.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService } from './harness/git-service.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, s3Env, startOperator } from './harness/runtime-stack.ts';

const PASSWORD = 'a long passphrase for the console';
const kubeconfig = inject('kubeconfig');
const running: Service[] = [];
let api: ApiServer | undefined;
let browser: Browser | undefined;
let service: RunningService | undefined;
let git: GitClient;
let member: MemberAccount;
let work: string;
let remote: string;
const gate = join(inject('stateDir'), `console-source-gate-${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'console-source');
  await createProjectNamespace(kubeconfig, member.project);
  const conn = loadKubeConnection(kubeconfig);
  await new KubePasswordStore(conn).setPasswordHash(member.user, await hashPassword(PASSWORD));
  const tokenSecret = newTokenSecret();
  const env = { CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN };
  [service, git, api, browser] = await Promise.all([
    startGitService({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret, namespace: member.project, kubeconfig, roles: ['serve', 'events'], sweepInterval: '1s' }),
    GitClient.create(),
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...env } }),
    launchBrowser(),
    startOperator(member.project, running, { ...env, CW_GIT_BUCKET: inject('bucket'), CW_BUILD_RUNNER: 'local', CW_BUILD_RESYNC: '30s' }),
  ]);
  if ((await fetch(`${api.url}/console/`)).status !== 200) throw new Error('cw-api serves no console: build it first (make console)');
  // The project's repository (as `kubectl apply` or the chart makes one), and the app to connect.
  const repositories = objectClient<Repository>(conn, REPOSITORIES);
  await repositories.create({ metadata: { name: 'site', namespace: member.project }, spec: { owner: member.project, name: 'site' } });
  await eventually(
    'the repository Ready',
    () => repositories.get(member.project, 'site'),
    (r) => findCondition(r?.status?.conditions, 'Ready')?.status === 'True',
  );
  const created = await fetch(`${api.url}/v1/projects/${member.project}/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
    body: '{"name":"web"}',
  });
  expect(created.status).toBe(201);
  work = await git.workdir(`site-${randomBytes(3).toString('hex')}`);
  await git.run(['init', '-q'], { cwd: work });
  remote = `${service.url.replace('http://', `http://git:${mintToken({ sub: member.user, scopes: ['write'] }, tokenSecret)}@`)}/${member.project}/site`;
}, 180_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop(), service?.stop(), ...running.map((s) => s.stop(5_000))]);
});

const worker = (text: string) => ({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(text)}); } };\n` });

describe('push to deploy in the console', () => {
  it('connects an app, follows a push’s build and its log live, and shows the preview of a branch', { timeout: 150_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const project = member.project;
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());
    await signInToConsole(page, `${api.url}/console/projects/${project}/apps/web`, member.user, PASSWORD);
    await page.getByRole('link', { name: 'Connect a repository' }).click();

    // A repository the project does not have: the API's reason, and nothing connected.
    await page.getByLabel('Repository', { exact: true }).fill(`${project}/missing`);
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `Project ${project} has no repository ${project}/missing.` })
      .waitFor();
    // A setting the API refuses: its reason, naming the field as the form does.
    await page.getByLabel('Repository', { exact: true }).fill(`${project}/site`);
    await page.getByLabel(/^Root directory/).fill('../outside');
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^Root directory must / })
      .waitFor();
    await checkConsolePage(page, 'source-connect');
    await page.getByLabel(/^Root directory/).fill('');

    await page.getByLabel('Repository', { exact: true }).fill(`${project}/site`);
    await page.getByLabel(/^Build command/).fill(`echo waiting for the gate; while [ ! -e ${gate} ]; do sleep 0.1; done; echo the gate opened`);
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByText('Connected: every push now deploys.').waitFor();
    await page.getByText('The production branch has no commit yet: push it to deploy.', { exact: false }).waitFor();

    // A push to main: its build shows up (the page refreshes itself) and its log is followed while it runs.
    const first = await git.commit(work, 'first version', worker('hello from main'));
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    const builds = page.getByRole('region', { name: 'Builds' });
    await builds.getByRole('link', { name: first.slice(0, 7) }).click();
    await page.getByRole('heading', { name: `Build web-${first.slice(0, 12)}` }).waitFor();
    const log = page.getByRole('log', { name: 'Build log' });
    await log.filter({ hasText: 'waiting for the gate' }).waitFor({ timeout: 30_000 });
    await page.getByText('Following the log while the build runs…').waitFor();
    await page
      .getByRole('definition')
      .first()
      .filter({ hasText: /^building/ })
      .waitFor();
    await checkConsolePage(page, 'source-build');
    await writeFile(gate, '');
    await page.getByText('The build ended: succeeded — built a worker of 1 file as build').waitFor({ timeout: 30_000 });
    await log.filter({ hasText: 'the gate opened' }).waitFor();
    await page
      .getByRole('definition')
      .filter({ hasText: /^succeeded/ })
      .waitFor();

    // The source page: production serves the commit, and the build is listed as succeeded with its message.
    await page.getByRole('link', { name: '← Push to deploy: web' }).click();
    await page.getByText('The production branch’s newest commit is built and served.', { exact: false }).waitFor({ timeout: 30_000 });
    const row = builds.getByRole('row').filter({ hasText: 'first version' });
    await row.filter({ hasText: 'succeeded' }).waitFor();
    expect(await row.getByText('Ada <ada@example.com>').count()).toBe(1);
    await checkConsolePage(page, 'source');

    // A branch push: a preview app, listed with what it previews, whose page names the commit it serves.
    await git.run(['checkout', '-q', '-b', 'feature/x'], { cwd: work });
    const preview = await git.commit(work, 'a preview', worker('hello from feature/x'));
    await git.run(['push', '-q', remote, 'feature/x'], { cwd: work });
    await page.getByRole('region', { name: 'Repository' }).getByRole('row').filter({ hasText: 'feature-x--web' }).filter({ hasText: 'served' }).waitFor({ timeout: 60_000 });
    await page.goto(`${api.url}/console/projects/${project}/apps`);
    // The preview app is named after its app and branch.
    await page.getByRole('row').filter({ hasText: 'web (feature/x)' }).filter({ hasText: 'Preview of web, branch feature/x' }).waitFor();
    await page.getByRole('link', { name: 'web (feature/x)' }).click();
    await page.getByText('A preview of web for the branch feature/x', { exact: false }).waitFor();
    await page.getByText(`Serves commit ${preview.slice(0, 7)}.`).waitFor();
    await checkConsolePage(page, 'app-preview');

    // Disconnected, once confirmed: the form to connect again.
    await page.goto(`${api.url}/console/projects/${project}/apps/web/source`);
    await page.getByRole('button', { name: 'Disconnect repository' }).click();
    await page.getByRole('heading', { name: 'Connect a repository' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
