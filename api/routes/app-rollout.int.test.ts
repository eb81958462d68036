import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutStatus } from '../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { RUNTIME_APPS } from '../../src/platform/resources.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

// The operator is not under test here: the test plays it, echoing each request in status.rollout as the
// operator's rollout state machine does.

let platform: PlatformApp;
let project: string;
let otherProject: string;
let token: string;
let otherToken: string;

const apps = () => objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);

beforeAll(async () => {
  // Short, so the 202 of an unanswered request comes quickly.
  platform = await platformApp({ rolloutAnswerWithinMs: 1_500 });
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  const other = await platform.createUser();
  otherProject = await platform.createProject(other, { namespace: true });
  token = await platform.tokenFor(owner, ['apps:write', 'apps:read', 'deploys:write']);
  otherToken = await platform.tokenFor(other, ['apps:write', 'apps:read', 'deploys:write']);
});
afterAll(() => platform.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, bearer = token, inProject = project) =>
  platform.app.inject({ method, url: `/v1/projects/${inProject}${path}`, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

async function createApp(name: string): Promise<string> {
  const res = await call('POST', '/apps', { name });
  expect(res.statusCode).toBe(201);
  return res.json().app.app_id as string;
}

const POLICY = {
  steps: [{ weight: 10, pause: '30s' }, { weight: 50, pause: 'manual' }, { weight: 100 }],
  affinity: { cookie: 'who' },
  analysis: { interval: '1m', min_requests: 20, max_error_percent: 5, max_percent_above_stable: 2, failure_limit: 1 },
  on_failure: 'pause',
};

const counts = (requests: number, errors: number) => ({ requests, errors });

/** A rollout as the operator reports it, at step 1 of 3 (50 %). */
function rolloutStatus(phase: RolloutStatus['phase'], extra: Partial<RolloutStatus> = {}): RolloutStatus {
  return {
    phase,
    stable: { release: 'r-stable', buildId: 'b-0000000000000001' },
    canary: { release: 'r-canary', buildId: 'b-0000000000000002' },
    step: 1,
    weight: 50,
    stepStartedAt: '2026-11-29T10:00:00Z',
    analysis: { stable: counts(400, 2), canary: counts(380, 1), baseline: { stable: counts(0, 0), canary: counts(0, 0) }, failures: 0, checkedAt: '2026-11-29T10:01:00Z' },
    message: 'Waiting for a promote at 50 %.',
    ...extra,
  };
}

/** Plays the operator: writes status.rollout as it would. */
async function reportRollout(appId: string, status: RolloutStatus): Promise<void> {
  await apps().patchStatus(project, appId, { status: { rollout: status } });
  // The API answers from its cache: the write is seen there before the test asks.
  await expect.poll(async () => (await call('GET', `/apps/${appId}`)).json().app.rollout?.phase, { timeout: 10_000, interval: 50 }).toBe(status.phase);
}

/**
 * Plays the operator's handling of a request: once the annotation appears, echoes its value in
 * `status.rollout[handled]` with the phase the request leads to.
 */
async function answerRequest(appId: string, annotation: string, handled: 'lastHandledPromote' | 'lastHandledAbort' | 'lastHandledRetry', next: Partial<RolloutStatus>): Promise<string> {
  let value = '';
  await expect
    .poll(
      async () => {
        value = (await apps().get(project, appId))?.metadata?.annotations?.[annotation] ?? '';
        return value;
      },
      { timeout: 10_000, interval: 25 },
    )
    .not.toBe('');
  const current = (await apps().get(project, appId))?.status?.rollout as RolloutStatus;
  await apps().patchStatus(project, appId, { status: { rollout: { ...current, ...next, [handled]: value } } });
  return value;
}

describe('the rollout policy', () => {
  it('sets, shows, replaces and removes spec.rollout, in the API’s words', async () => {
    const appId = await createApp('ro-basic');
    const put = await call('PUT', `/apps/${appId}/rollout`, POLICY);
    expect(put.statusCode).toBe(201);
    expect(put.json().rollout).toStrictEqual({ policy: POLICY });
    expect((await apps().get(project, appId))?.spec.rollout).toStrictEqual({
      steps: [{ weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: {} }, { weight: 100 }],
      affinity: { cookie: 'who' },
      analysis: { interval: '1m', minRequests: 20, maxErrorPercent: 5, maxPercentAboveStable: 2, failureLimit: 1 },
      onFailure: 'Pause',
    });
    expect((await call('GET', `/apps/${appId}/rollout`)).json().rollout).toStrictEqual({ policy: POLICY });

    // Replaced whole: what the body leaves out gets its default.
    const replaced = await call('PUT', `/apps/${appId}/rollout`, { steps: [{ weight: 25 }] });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().rollout.policy).toStrictEqual({ steps: [{ weight: 25 }], on_failure: 'abort' });

    await reportRollout(appId, rolloutStatus('Paused'));
    const shown = await call('GET', `/apps/${appId}/rollout`);
    expect(shown.json().rollout.status).toStrictEqual({
      phase: 'Paused',
      step: 1,
      steps: 1,
      weight: 50,
      stable_build_id: 'b-0000000000000001',
      canary_build_id: 'b-0000000000000002',
      step_started_at: '2026-11-29T10:00:00Z',
      analysis: { stable: counts(400, 2), canary: counts(380, 1), failures: 0, checked_at: '2026-11-29T10:01:00Z' },
      message: 'Waiting for a promote at 50 %.',
    });
    // The app view and the list carry the summary.
    const summary = { phase: 'Paused', weight: 50, canary_build_id: 'b-0000000000000002' };
    expect((await call('GET', `/apps/${appId}`)).json().app.rollout).toStrictEqual(summary);
    expect((await call('GET', '/apps')).json().apps.find((a: { app_id: string }) => a.app_id === appId).rollout).toStrictEqual(summary);

    expect((await call('DELETE', `/apps/${appId}/rollout`)).statusCode).toBe(204);
    expect((await apps().get(project, appId))?.spec.rollout).toBeUndefined();
    const gone = await call('GET', `/apps/${appId}/rollout`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().detail).toBe(`App ${appId} has no rollout policy: its deploys switch all traffic at once. Set one with PUT …/apps/${appId}/rollout.`);
    expect((await call('DELETE', `/apps/${appId}/rollout`)).statusCode).toBe(404);
  });

  it.each([
    [{ steps: [{ weight: 10 }, { weight: 101 }] }, 'body.steps.1.weight'],
    [{ steps: [{ weight: -1 }] }, 'body.steps.0.weight'],
    [{ steps: [{ weight: 10 }, { weight: 10 }] }, 'body.steps.1.weight: step weights must increase'],
    [{ steps: [{ weight: 50 }, { weight: 20 }] }, 'body.steps.1.weight: step weights must increase'],
    [{ steps: [{ weight: 10, pause: '30 seconds' }] }, 'body.steps.0.pause'],
    [{ steps: [] }, 'body.steps'],
    [{ steps: Array.from({ length: 11 }, (_, i) => ({ weight: i * 5 })) }, 'body.steps'],
    [{ steps: [{ weight: 10 }], analysis: { max_error_percent: 5 } }, 'body.analysis'],
    [{ steps: [{ weight: 10 }], analysis: { min_requests: 10 } }, 'body.analysis: needs max_error_percent or max_percent_above_stable'],
    [{ steps: [{ weight: 10 }], analysis: { min_requests: 10, max_error_percent: 5, interval: 'soon' } }, 'body.analysis.interval'],
    [{ steps: [{ weight: 10 }], affinity: { cookie: 'a', header: 'b' } }, 'body.affinity: name a cookie or a header, one of the two.'],
    [{ steps: [{ weight: 10 }], affinity: { header: 'no spaces' } }, 'body.affinity.header'],
    [{ steps: [{ weight: 10 }], on_failure: 'explode' }, 'body.on_failure'],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    const appId = await createApp(`ro-bad-${Math.random().toString(36).slice(2, 8)}`);
    const res = await call('PUT', `/apps/${appId}/rollout`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(field);
    expect((await apps().get(project, appId))?.spec.rollout).toBeUndefined();
  });

  it('keeps other projects out', async () => {
    const appId = await createApp('ro-tenant');
    expect((await call('PUT', `/apps/${appId}/rollout`, POLICY)).statusCode).toBe(201);
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/promote'],
      ['POST', '/abort'],
      ['POST', '/retry'],
    ] as const) {
      const res = await call(method, `/apps/${appId}/rollout${path}`, method === 'PUT' ? POLICY : undefined, otherToken);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
    // Its own project has no such app.
    expect((await call('GET', `/apps/${appId}/rollout`, undefined, otherToken, otherProject)).statusCode).toBe(404);
    expect((await call('POST', `/apps/${appId}/rollout/promote`, undefined, otherToken, otherProject)).statusCode).toBe(404);
    expect((await apps().get(project, appId))?.metadata?.annotations?.[ROLLOUT_PROMOTE_ANNOTATION]).toBeUndefined();
  });
});

describe('requests to a rollout', () => {
  it('promotes: writes the annotation and answers once the operator echoed it', async () => {
    const appId = await createApp('ro-promote');
    await call('PUT', `/apps/${appId}/rollout`, POLICY);
    await reportRollout(appId, rolloutStatus('Paused'));
    const [res, value] = await Promise.all([
      call('POST', `/apps/${appId}/rollout/promote`),
      answerRequest(appId, ROLLOUT_PROMOTE_ANNOTATION, 'lastHandledPromote', { phase: 'Progressing', step: 2, weight: 100, message: 'Promoted.' }),
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json().rollout.status).toMatchObject({ phase: 'Progressing', step: 2, weight: 100, message: 'Promoted.', last_handled_promote: value });
    // A second promote is a new request: a fresh value.
    const [again, second] = await Promise.all([
      call('POST', `/apps/${appId}/rollout/promote`),
      (async () => {
        await expect.poll(async () => (await apps().get(project, appId))?.metadata?.annotations?.[ROLLOUT_PROMOTE_ANNOTATION], { timeout: 10_000, interval: 25 }).not.toBe(value);
        return answerRequest(appId, ROLLOUT_PROMOTE_ANNOTATION, 'lastHandledPromote', { phase: 'Succeeded', step: 3 });
      })(),
    ]);
    expect(second).not.toBe(value);
    expect(again.statusCode).toBe(200);
    expect(again.json().rollout.status).toMatchObject({ phase: 'Succeeded', last_handled_promote: second });
  });

  it('aborts, then retries the aborted rollout', async () => {
    const appId = await createApp('ro-abort');
    await call('PUT', `/apps/${appId}/rollout`, POLICY);
    await reportRollout(appId, rolloutStatus('Progressing'));
    const [aborted] = await Promise.all([
      call('POST', `/apps/${appId}/rollout/abort`),
      answerRequest(appId, ROLLOUT_ABORT_ANNOTATION, 'lastHandledAbort', { phase: 'Aborted', weight: 0, message: 'Aborted by a request.' }),
    ]);
    expect(aborted.statusCode).toBe(200);
    expect(aborted.json().rollout.status).toMatchObject({ phase: 'Aborted', weight: 0 });
    // Nothing left to promote or abort.
    for (const action of ['promote', 'abort']) {
      const refused = await call('POST', `/apps/${appId}/rollout/${action}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().detail).toBe(`App ${appId}: there is nothing to ${action}: no rollout is under way (the latest rollout is Aborted).`);
    }
    const [retried] = await Promise.all([
      call('POST', `/apps/${appId}/rollout/retry`),
      answerRequest(appId, ROLLOUT_RETRY_ANNOTATION, 'lastHandledRetry', { phase: 'Progressing', step: 0, weight: 10 }),
    ]);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().rollout.status).toMatchObject({ phase: 'Progressing', step: 0, weight: 10 });
  });

  it('refuses a retry of a rollout that is not aborted, and any request before there was a rollout', async () => {
    const appId = await createApp('ro-nothing');
    await call('PUT', `/apps/${appId}/rollout`, POLICY);
    const none = await call('POST', `/apps/${appId}/rollout/promote`);
    expect(none.statusCode).toBe(409);
    expect(none.json().detail).toBe(`App ${appId}: there is nothing to promote: no rollout is under way.`);
    await reportRollout(appId, rolloutStatus('Succeeded', { step: 3, weight: 100 }));
    const retry = await call('POST', `/apps/${appId}/rollout/retry`);
    expect(retry.statusCode).toBe(409);
    expect(retry.json().detail).toBe(`App ${appId}: there is nothing to retry: only an aborted rollout can be retried (the latest rollout is Succeeded).`);
    const annotations = (await apps().get(project, appId))?.metadata?.annotations ?? {};
    expect(Object.keys(annotations).filter((k) => k.startsWith('cloudwright.dev/rollout-'))).toStrictEqual([]);
  });

  it('answers 202 with the rollout as it stands when the operator does not answer in time; the request stands', async () => {
    const appId = await createApp('ro-late');
    await call('PUT', `/apps/${appId}/rollout`, POLICY);
    await reportRollout(appId, rolloutStatus('Paused'));
    const res = await call('POST', `/apps/${appId}/rollout/abort`);
    expect(res.statusCode).toBe(202);
    expect(res.json().rollout.status).toMatchObject({ phase: 'Paused' });
    expect(res.json().rollout.status.last_handled_abort).toBeUndefined();
    expect((await apps().get(project, appId))?.metadata?.annotations?.[ROLLOUT_ABORT_ANNOTATION]).toMatch(/^\d{4}-/);
  });
});
