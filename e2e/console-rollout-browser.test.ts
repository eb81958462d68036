// Gradual rollouts on the console's app page, in headless Chromium against a real cw-api and the test control
// plane: the policy is set through the form (a refusal shown with the API's reason in the form's words), and the
// rollout the test plays the operator's part of (status.rollout written, each request annotation echoed) is
// followed live, promoted, aborted and retried from the page's buttons. Each state passes axe-core and fits 320 px.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { KubePasswordStore } from '../api/stores/kube-password-store.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { checkConsolePage, launchBrowser, pageErrors, signInToConsole } from './harness/browser.ts';

const PASSWORD = 'a long passphrase for the console';
const kubeconfig = inject('kubeconfig');
const apps = objectClient<RuntimeApp>(loadKubeConnection(kubeconfig), RUNTIME_APPS);
let api: ApiServer | undefined;
let browser: Browser | undefined;
let member: MemberAccount;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'console-rollout');
  await createProjectNamespace(kubeconfig, member.project);
  await new KubePasswordStore(loadKubeConnection(kubeconfig)).setPasswordHash(member.user, await hashPassword(PASSWORD));
  [api, browser] = await Promise.all([startApiServer({ kubeconfig, stateDir: inject('stateDir') }), launchBrowser()]);
  if ((await fetch(`${api.url}/console/`)).status !== 200) throw new Error('cw-api serves no console: build it first (make console)');
  const created = await fetch(`${api.url}/v1/projects/${member.project}/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
    body: '{"name":"web"}',
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), api?.stop()]);
});

const counts = (requests: number, errors: number) => ({ requests, errors });

/** Plays the operator: writes status.rollout (and observedGeneration, as its every status write does). */
async function report(rollout: Partial<RolloutStatus>): Promise<void> {
  const app = await apps.get(member.project, 'web');
  await apps.patchStatus(member.project, 'web', { status: { observedGeneration: app?.metadata?.generation, rollout: { ...app?.status?.rollout, ...rollout } } });
}

/** Plays the operator's handling of a request: once `annotation` is set, echoes it in `handled` with `next`. */
async function answer(annotation: string, handled: 'lastHandledPromote' | 'lastHandledAbort' | 'lastHandledRetry', next: Partial<RolloutStatus>): Promise<void> {
  let value: string | undefined;
  await expect
    .poll(
      async () => {
        value = (await apps.get(member.project, 'web'))?.metadata?.annotations?.[annotation];
        return value;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBeDefined();
  await report({ ...next, [handled]: value });
}

describe('rollouts in the console', () => {
  it('sets a policy, follows a rollout live, and promotes, aborts and retries it', { timeout: 120_000 }, async () => {
    if (!browser || !api) throw new Error('not started');
    const apiUrl = api.url;
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors = pageErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());
    // The page's timers run on a clock the test can stop: to hold what it shows while the rollout changes.
    await page.clock.install();
    await signInToConsole(page, `${api.url}/console/projects/${member.project}/apps/web`, member.user, PASSWORD);
    const panel = page.getByRole('region', { name: 'Rollout' });
    await panel.getByText('No rollout policy: a deploy switches all traffic at once.').waitFor();

    // Weights that do not increase: the API's reason, naming the step as the form does; nothing is set.
    await panel.getByRole('button', { name: 'Set a rollout policy' }).click();
    await panel.getByLabel(/^Steps/).fill('50:30s, 20');
    await panel.getByRole('button', { name: 'Save policy' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Steps (step 2, weight): step weights must increase (20 follows 50).' }).waitFor();
    await checkConsolePage(page, 'rollout-form');
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toBeUndefined();

    await panel.getByLabel(/^Steps/).fill('10:30s, 50:manual, 100');
    await panel.getByLabel('Keep each user on one build by').selectOption('header');
    await panel.getByLabel('Cookie or header name').fill('x-user');
    await panel.getByLabel('Minimum requests per interval').fill('20');
    await panel.getByLabel(/^Most errors/).fill('5');
    await panel.getByRole('button', { name: 'Save policy' }).click();
    await panel.getByText('Policy saved: the next deploy rolls out in these steps.').waitFor();
    await panel.getByText('Deploys go out in steps: 10 % for 30s → 50 % until promoted → 100 %, judged every 1m (aborting on failure).').waitFor();
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toStrictEqual({
      steps: [{ weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: {} }, { weight: 100 }],
      affinity: { header: 'x-user' },
      analysis: { minRequests: 20, maxErrorPercent: 5 },
      onFailure: 'Abort',
    });

    // A deploy starts a rollout (the operator's part, played here): the page shows it without a reload.
    await report({
      phase: 'Progressing',
      stable: { release: 'r-1', buildId: 'b-00000000000000a1' },
      canary: { release: 'r-2', buildId: 'b-00000000000000a2' },
      step: 0,
      weight: 10,
      analysis: { stable: counts(900, 3), canary: counts(100, 1), baseline: { stable: counts(0, 0), canary: counts(0, 0) }, failures: 0, checkedAt: '2026-11-29T10:01:00Z' },
    });
    await panel.getByText('Progressing', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await panel.getByRole('meter').getAttribute('value')).toBe('10');
    await panel.getByText('stable 900 requests, 3 errors; new 100 requests, 1 errors (0 failed)').waitFor();
    await panel.getByText('b-00000000000000a2').waitFor();
    // It moves on by itself: the page follows (every 2 s while under way).
    await report({ phase: 'Paused', step: 1, weight: 50, message: 'Waiting for a promote at 50 %.' });
    await panel.getByText('Waiting for a promote at 50 %.').waitFor({ timeout: 10_000 });
    await panel.getByText('2 of 3').waitFor();
    expect(await panel.getByRole('meter').getAttribute('value')).toBe('50');
    await checkConsolePage(page, 'rollout-paused');

    await Promise.all([
      panel.getByRole('button', { name: 'Promote' }).click(),
      answer(ROLLOUT_PROMOTE_ANNOTATION, 'lastHandledPromote', { phase: 'Progressing', step: 2, weight: 100, message: 'Promoted.' }),
    ]);
    await panel.getByText('Promoted.', { exact: true }).first().waitFor();
    await panel.getByText('3 of 3').waitFor();

    await Promise.all([panel.getByRole('button', { name: 'Abort' }).click(), answer(ROLLOUT_ABORT_ANNOTATION, 'lastHandledAbort', { phase: 'Aborted', weight: 0, message: 'Aborted by a request.' })]);
    await panel.getByText('Aborted by a request.').waitFor();
    expect(await panel.getByRole('button', { name: 'Promote' }).count()).toBe(0);
    await checkConsolePage(page, 'rollout-aborted');

    await Promise.all([panel.getByRole('button', { name: 'Retry' }).click(), answer(ROLLOUT_RETRY_ANNOTATION, 'lastHandledRetry', { phase: 'Progressing', step: 0, weight: 10, message: 'Retried.' })]);
    await panel.getByText('Retried.', { exact: true }).first().waitFor();
    // The message is the request's answer; the meter follows once the panel has read the rollout again.
    await expect.poll(() => panel.getByRole('meter').getAttribute('value'), { timeout: 10_000 }).toBe('10');

    // Another page (or kubectl) aborted meanwhile, before this page read it again: Promote answers 409, shown with
    // the API's reason.
    // The page's clock, not the test's: fast-forwarded above, it may be ahead of it.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 100);
    await report({ phase: 'Aborted', weight: 0, message: 'Aborted elsewhere.' });
    await expect
      .poll(async () => (await fetch(`${apiUrl}/v1/projects/${member.project}/apps/web/rollout`, { headers: { authorization: `Bearer ${member.token}` } })).json(), { timeout: 10_000 })
      .toMatchObject({ rollout: { status: { phase: 'Aborted' } } });
    await panel.getByRole('button', { name: 'Promote' }).click();
    await panel.getByRole('alert').filter({ hasText: 'App web: there is nothing to promote: no rollout is under way (the latest rollout is Aborted).' }).waitFor();
    await page.clock.resume();

    await panel.getByRole('button', { name: 'Remove the policy' }).click();
    await panel.getByText('Policy removed: deploys switch at once.').waitFor();
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toBeUndefined();
    expect(errors).toStrictEqual([]);
  });
});
