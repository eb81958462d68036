// `cw rollout set | status | promote | abort | retry | unset` end to end: the real command-line tool (cli/dist)
// against a real cw-api child process and the test control plane. No operator runs: the test plays its
// rollout state machine, writing status.rollout and echoing each request annotation as it would, so what `cw`
// shows and writes is checked against what the platform holds.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, type RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { cw, cwJson, type CwUser, expectOneLineError, newCwUser, startCw } from './harness/cli.ts';

const kubeconfig = inject('kubeconfig');
const apps = objectClient<RuntimeApp>(loadKubeConnection(kubeconfig), RUNTIME_APPS);
let api: ApiServer | undefined;
let member: MemberAccount;
let user: CwUser;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'cli-rollout');
  await createProjectNamespace(kubeconfig, member.project);
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir') });
  user = newCwUser(api.url, { CW_TOKEN: member.token, CW_PROJECT: member.project });
  const created = await cw(user, ['apps', 'create', 'web']);
  expect(created.code, created.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

const counts = (requests: number, errors: number) => ({ requests, errors });

/** Plays the operator: writes status.rollout (and observedGeneration, as its every status write does). */
async function report(rollout: Partial<RolloutStatus>): Promise<void> {
  const app = await apps.get(member.project, 'web');
  const current = app?.status?.rollout;
  await apps.patchStatus(member.project, 'web', { status: { observedGeneration: app?.metadata?.generation, rollout: { ...current, ...rollout } } });
}

/** Plays the operator's handling of a request: once `annotation` has a value it did not, echoes it with `next`. */
async function answer(annotation: string, handled: 'lastHandledPromote' | 'lastHandledAbort', next: Partial<RolloutStatus>, before?: string): Promise<string> {
  let value: string | undefined;
  await expect
    .poll(
      async () => {
        value = (await apps.get(member.project, 'web'))?.metadata?.annotations?.[annotation];
        return value !== undefined && value !== before;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBe(true);
  await report({ ...next, [handled]: value });
  return value as string;
}

describe('cw rollout', () => {
  it('refuses bad input in one line with exit 2, before asking the API', async () => {
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '10:30s,150']), 2, /step 2 \("150"\): expected WEIGHT\[:PAUSE\], a weight from 0 to 100/);
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '10:soon']), 2, /the pause is a duration such as 30s, 5m or 1h30m, or manual/);
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '10', '--affinity-cookie', 'a', '--affinity-header', 'b']), 2, /--affinity-cookie or --affinity-header, not both/);
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '10', '--max-error-percent', '5']), 2, /analysis needs --min-requests/);
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '10', '--on-failure', 'explode']), 2, /expected one of abort, pause/);
    // What only the API knows (increasing weights): its problem detail, in one line.
    expectOneLineError(await cw(user, ['rollout', 'set', 'web', '--steps', '50,20']), 1, /body\.steps\.1\.weight: step weights must increase/);
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toBeUndefined();
  });

  it('sets the policy, follows a rollout, promotes, aborts, and unsets', async () => {
    const set = await cw(user, [
      'rollout',
      'set',
      'web',
      '--steps',
      '10:30s,50:manual,100',
      '--affinity-header',
      'x-user',
      '--min-requests',
      '20',
      '--max-error-percent',
      '5',
      '--on-failure',
      'pause',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('App web rolls its next deploys out in steps: 10% for 30s → 50% until promoted → 100%');
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toStrictEqual({
      steps: [{ weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: {} }, { weight: 100 }],
      affinity: { header: 'x-user' },
      analysis: { minRequests: 20, maxErrorPercent: 5 },
      onFailure: 'Pause',
    });

    await report({
      phase: 'Progressing',
      stable: { release: 'r-1', buildId: 'b-00000000000000a1' },
      canary: { release: 'r-2', buildId: 'b-00000000000000a2' },
      step: 0,
      weight: 10,
      analysis: { stable: counts(900, 3), canary: counts(100, 1), baseline: { stable: counts(0, 0), canary: counts(0, 0) }, failures: 0, checkedAt: '2026-11-29T10:01:00Z' },
    });
    const watch = startCw(user, ['rollout', 'status', 'web', '--watch']);
    // The block's last line: the output may arrive in pieces.
    await watch.waitFor(/Last interval:.*failed intervals/);
    const first = watch.output();
    expect(first).toMatch(/Step:\s+1 of 3/);
    expect(first).toMatch(/Phase:\s+Progressing/);
    expect(first).toMatch(/Weight:\s+10% on the new build/);
    expect(first).toMatch(/Builds:\s+b-00000000000000a1 → b-00000000000000a2/);
    expect(first).toMatch(/Last interval:\s+stable 900 requests, 3 errors; new 100 requests, 1 errors; 0 failed intervals/);

    // The operator moves on to the manual pause: the watch shows it.
    await report({ phase: 'Paused', step: 1, weight: 50, message: 'Waiting for a promote at 50 %.' });
    await watch.waitFor(/Message:\s+Waiting for a promote at 50 %\./);
    expect(watch.output()).toMatch(/Step:\s+2 of 3/);

    const [promoted, value] = await Promise.all([
      cw(user, ['rollout', 'promote', 'web']),
      answer(ROLLOUT_PROMOTE_ANNOTATION, 'lastHandledPromote', { phase: 'Progressing', step: 2, weight: 100, message: 'Promoted.' }),
    ]);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('Promoted the rollout of app web');
    expect(promoted.stdout).toMatch(/Weight:\s+100% on the new build/);
    await watch.waitFor(/Message:\s+Promoted\./);

    // Aborted: the watch ends with exit 1 and the reason.
    const [aborted] = await Promise.all([
      cw(user, ['rollout', 'abort', 'web']),
      answer(ROLLOUT_ABORT_ANNOTATION, 'lastHandledAbort', { phase: 'Aborted', weight: 0, message: 'Aborted by a request.' }),
    ]);
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(aborted.stdout).toContain('Aborted the rollout of app web');
    const ended = await watch.done;
    expect(ended.code).toBe(1);
    expect(ended.stderr.trim()).toBe('error: the rollout of app web was aborted: Aborted by a request.');

    // Nothing left to promote: the API's 409, in one line.
    expectOneLineError(await cw(user, ['rollout', 'promote', 'web']), 1, /there is nothing to promote: no rollout is under way \(the latest rollout is Aborted\)/);
    const json = await cwJson<{ rollout: { status: { phase: string; last_handled_promote: string } } }>(user, ['rollout', 'status', 'web'], {
      method: 'GET',
      path: '/v1/projects/{projectId}/apps/{appId}/rollout',
    });
    expect(json.rollout.status).toMatchObject({ phase: 'Aborted', last_handled_promote: value });

    const unset = await cw(user, ['rollout', 'unset', 'web']);
    expect(unset.code, unset.stderr).toBe(0);
    expect((await apps.get(member.project, 'web'))?.spec.rollout).toBeUndefined();
    expectOneLineError(await cw(user, ['rollout', 'status', 'web']), 1, /App web has no rollout policy/);
  });
});
