import { describe, expect, it } from 'vitest';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutPolicy, type RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../../../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf, servingPlan } from '../../../../src/runtime-contract/releases.ts';
import type { RuntimeAppReport } from '../../../../src/runtime-contract/report.ts';
import { nextRollout } from './machine.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const v1 = releaseOf({ displayName: 'a', activeBuildId: 'b1' })!;
const v2 = releaseOf({ displayName: 'a', activeBuildId: 'b2' })!;
const v3 = releaseOf({ displayName: 'a', activeBuildId: 'b3' })!;
const steps: RolloutPolicy['steps'] = [{ weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: {} }, { weight: 100 }];
const analysis = { interval: '1m', minRequests: 10, maxErrorPercent: 5 };

function app(build: string, rollout: RolloutStatus | undefined, over: { policy?: RolloutPolicy | null; annotations?: Record<string, string>; environment?: Record<string, string> } = {}): RuntimeApp {
  const policy = over.policy === null ? undefined : (over.policy ?? { steps });
  return {
    metadata: { name: 'a', namespace: 'p', generation: 2, ...(over.annotations ? { annotations: over.annotations } : {}) },
    spec: { displayName: 'a', activeBuildId: build, ...(over.environment ? { environment: over.environment } : {}), ...(policy ? { rollout: policy } : {}) },
    ...(rollout ? { status: { rollout } } : {}),
  };
}
/** A replica splitting for `release` at `weight` with cumulative counts. */
const splitting = (release: string, weight: number, canary: [number, number] = [0, 0], stable: [number, number] = [0, 0]): RuntimeAppReport => ({
  namespace: 'p',
  app: 'a',
  servingBuildId: 'b2',
  hosts: [],
  rollout: { release, weight, stable: { requests: stable[0], errors: stable[1] }, canary: { requests: canary[0], errors: canary[1] } },
});
const progressing = (over: Partial<RolloutStatus> = {}): RolloutStatus => ({ phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 10, stepStartedAt: '2026-01-01T00:00:00Z', ...over });
const analysed = (over: Partial<NonNullable<RolloutStatus['analysis']>> = {}): NonNullable<RolloutStatus['analysis']> => ({
  stable: { requests: 0, errors: 0 },
  canary: { requests: 0, errors: 0 },
  baseline: { stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } },
  failures: 0,
  passes: 0,
  checkedAt: '2026-01-01T00:00:00Z',
  ...over,
});

describe('the rollout state machine: the spec', () => {
  it('without a policy there is no rollout', () => {
    expect(nextRollout({ app: app('b2', progressing(), { policy: null }), replicas: [], now: t0 }).rollout).toBeUndefined();
  });

  it('a policy on an app with a build records its release as stable: the policy applies to the next change', () => {
    const { rollout } = nextRollout({ app: app('b1', undefined), replicas: [], now: t0 });
    expect(rollout).toEqual({ phase: 'Succeeded', stable: v1, step: 3, weight: 100 });
    expect(servingPlan({ ...app('b1', rollout) })).toEqual({ kind: 'spec' });
  });

  it('a policy set in the same edit as a new release rolls it out from the release every replica serves', () => {
    const edited: RuntimeApp = { ...app('b2', undefined), status: { served: v1 } };
    const { rollout } = nextRollout({ app: edited, replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 10 });
    // Nothing served yet (a first deploy with its policy): the spec's release is the stable one.
    expect(nextRollout({ app: app('b2', undefined), replicas: [], now: t0 }).rollout).toEqual({ phase: 'Succeeded', stable: v2, step: 3, weight: 100 });
  });

  it.each<[string, RolloutStatus]>([
    ['after a success', { phase: 'Succeeded', stable: v1, step: 3, weight: 100 }],
    ['after an abort of another release', { ...progressing({ canary: v3 }), phase: 'Aborted', weight: 0, lastHandledAbort: 'x' }],
  ])('a new release starts a rollout from the stable one %s', (_name, before) => {
    const { rollout } = nextRollout({ app: app('b2', before), replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 10, message: 'Step 1 of 3: 10 % of traffic on build b2.' });
    expect(rollout?.stepStartedAt).toBeUndefined(); // the step begins once every replica applies it
    expect(rollout?.analysis).toBeUndefined();
  });

  it('an environment change is a new release too', () => {
    const { rollout } = nextRollout({ app: app('b1', { phase: 'Succeeded', stable: v1, step: 3, weight: 100 }, { environment: { A: '1' } }), replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Progressing', stable: v1, canary: { buildId: 'b1', environment: { A: '1' } } });
  });

  it.each(['Progressing', 'Paused'] as const)('a third release while %s replaces the canary at step 0, the stable one stays', (phase) => {
    const before = progressing({ phase, step: 1, weight: 50, analysis: analysed({ failures: 1, passes: 2 }) });
    const { rollout } = nextRollout({ app: app('b3', before, { policy: { steps, analysis: { ...analysis, failureLimit: 3 } } }), replicas: [], now: at(100) });
    expect(rollout).toMatchObject({ phase: 'Progressing', stable: v1, canary: v3, step: 0, weight: 10 });
    expect(rollout?.stepStartedAt).toBeUndefined(); // the step begins once every replica applies it
    expect(rollout?.analysis).toMatchObject({ failures: 0, passes: 0, checkedAt: '2026-01-01T00:01:40Z' });
  });

  it.each(['Progressing', 'Paused'] as const)('the stable release set back while %s aborts (the rollback)', (phase) => {
    const { rollout } = nextRollout({ app: app('b1', progressing({ phase })), replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Aborted', weight: 0, stable: v1, canary: v2 });
    expect(rollout?.message).toMatch(/set back to build b1/);
  });

  it('the aborted release applied again does not restart; the stable one applied again changes nothing', () => {
    const aborted: RolloutStatus = { ...progressing(), phase: 'Aborted', weight: 0, message: 'Aborted on request.' };
    expect(nextRollout({ app: app('b2', aborted), replicas: [], now: t0 }).rollout).toEqual(aborted);
    expect(nextRollout({ app: app('b1', aborted), replicas: [], now: t0 }).rollout).toEqual(aborted);
  });
});

describe('the rollout state machine: steps', () => {
  const v2at = (weight: number, n = 2) => Array.from({ length: n }, () => splitting(v2.release, weight));

  it.each<[string, ReadonlyArray<RuntimeAppReport | undefined>]>([
    ['no replica', []],
    ['a replica not acted', [splitting(v2.release, 10), undefined]],
    ['a replica at the old weight', [splitting(v2.release, 10), splitting(v2.release, 0)]],
    ['a replica on another release', [splitting(v2.release, 10), splitting(v3.release, 10)]],
  ])('waits by watch while the weight is not applied: %s', (_name, replicas) => {
    const before = progressing();
    expect(nextRollout({ app: app('b2', before), replicas, now: at(3600) })).toEqual({ rollout: before });
  });

  it('a new release a replica suspended (it stopped a runtime shard) aborts the rollout at once, whatever its step', () => {
    const suspended: RuntimeAppReport = { ...splitting(v2.release, 0, [3, 1]), rollout: { ...splitting(v2.release, 0, [3, 1]).rollout!, suspended: true } };
    const { rollout } = nextRollout({ app: app('b2', progressing()), replicas: [splitting(v2.release, 10), suspended], now: at(1) });
    expect(rollout).toMatchObject({
      phase: 'Aborted',
      weight: 0,
      message: 'Build b2 stopped a runtime shard (it ran past the CPU bound or out of memory) on 1 of 2 runtime replicas. Build b1 serves all traffic.',
    });
  });

  it('a timed pause waits what is left of it, then moves on', () => {
    const before = progressing();
    expect(nextRollout({ app: app('b2', before), replicas: v2at(10), now: at(10) })).toEqual({ rollout: before, requeueAfter: 20_000 });
    const { rollout, requeueAfter } = nextRollout({ app: app('b2', before), replicas: v2at(10), now: at(30) });
    expect(requeueAfter).toBeUndefined();
    expect(rollout).toMatchObject({ phase: 'Progressing', step: 1, weight: 50, message: 'Step 2 of 3: 50 % of traffic on build b2.' });
    expect(rollout?.stepStartedAt).toBeUndefined(); // the step begins once every replica applies it
  });

  it('a timed pause counts from when every replica applies the step, not from when it was asked for', () => {
    const asked = progressing({ stepStartedAt: undefined });
    // Held for minutes (migrations, a slow load): nothing moves while a replica is not at the weight yet.
    expect(nextRollout({ app: app('b2', asked), replicas: [splitting(v2.release, 10), undefined], now: at(400) })).toEqual({ rollout: asked });
    const begun = nextRollout({ app: app('b2', asked), replicas: v2at(10), now: at(400) });
    expect(begun).toEqual({ rollout: { ...asked, stepStartedAt: '2026-01-01T00:06:40Z' }, requeueAfter: 30_000 });
    expect(nextRollout({ app: app('b2', begun.rollout), replicas: v2at(10), now: at(430) }).rollout).toMatchObject({ step: 1, weight: 50 });
  });

  it('a pause without duration holds the step Paused until a promote', () => {
    const before = progressing({ step: 1, weight: 50 });
    const paused = nextRollout({ app: app('b2', before), replicas: v2at(50), now: at(9999) }).rollout;
    expect(paused).toMatchObject({ phase: 'Paused', step: 1, weight: 50, message: 'Step 2 of 3: 50 % of traffic on build b2. Paused until a promote.' });
    expect(nextRollout({ app: app('b2', paused), replicas: v2at(50), now: at(99999) }).rollout).toEqual(paused);
    const promoted = nextRollout({ app: app('b2', paused, { annotations: { [ROLLOUT_PROMOTE_ANNOTATION]: 'p1' } }), replicas: v2at(50), now: at(100) }).rollout;
    expect(promoted).toMatchObject({ phase: 'Progressing', step: 2, weight: 100, lastHandledPromote: 'p1' });
  });

  it('after the last step: Succeeded, all traffic, the new release stable so the spec is served as it is', () => {
    const before = progressing({ step: 2, weight: 100 });
    const { rollout } = nextRollout({ app: app('b2', before), replicas: v2at(100), now: at(1) });
    expect(rollout).toMatchObject({ phase: 'Succeeded', stable: v2, canary: v2, step: 3, weight: 100, message: 'Build b2 serves all traffic.' });
    expect(servingPlan(app('b2', rollout))).toEqual({ kind: 'spec' });
  });

  it('a policy edited down to fewer steps than the current one succeeds', () => {
    const { rollout } = nextRollout({ app: app('b2', progressing({ step: 2, weight: 100 }), { policy: { steps: [{ weight: 50 }] } }), replicas: [], now: at(1) });
    expect(rollout).toMatchObject({ phase: 'Succeeded', stable: v2, step: 1, weight: 100 });
  });

  it('a promote moves on at once, applied or not; from the last step it succeeds', () => {
    const promote = { annotations: { [ROLLOUT_PROMOTE_ANNOTATION]: 'p1' } };
    expect(nextRollout({ app: app('b2', progressing(), promote), replicas: [], now: at(1) }).rollout).toMatchObject({ phase: 'Progressing', step: 1, weight: 50, lastHandledPromote: 'p1' });
    expect(nextRollout({ app: app('b2', progressing({ step: 2, weight: 100 }), promote), replicas: [], now: at(1) }).rollout).toMatchObject({ phase: 'Succeeded', weight: 100, stable: v2 });
  });
});

describe('the rollout state machine: requests', () => {
  const req = (annotation: string, value = 'r1') => ({ annotations: { [annotation]: value } });
  const aborted: RolloutStatus = { ...progressing({ step: 1, weight: 0 }), phase: 'Aborted', message: 'Aborted on request: build b1 serves all traffic.', analysis: analysed({ failures: 2 }) };

  it.each(['Progressing', 'Paused'] as const)('an abort while %s: Aborted, weight 0, echoed', (phase) => {
    const { rollout } = nextRollout({ app: app('b2', progressing({ phase, weight: 10 }), req(ROLLOUT_ABORT_ANNOTATION)), replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Aborted', weight: 0, lastHandledAbort: 'r1', message: 'Aborted on request: build b1 serves all traffic.' });
    expect(servingPlan(app('b2', rollout))).toEqual({ kind: 'single', release: v1 });
  });

  it('a retry of the aborted release restarts it at step 0 with its failures reset', () => {
    const { rollout } = nextRollout({ app: app('b2', aborted, { ...req(ROLLOUT_RETRY_ANNOTATION), policy: { steps, analysis } }), replicas: [], now: at(5) });
    expect(rollout).toMatchObject({ phase: 'Progressing', step: 0, weight: 10, stable: v1, canary: v2, lastHandledRetry: 'r1' });
    expect(rollout?.stepStartedAt).toBeUndefined(); // the step begins once every replica applies it
    expect(rollout?.analysis).toMatchObject({ failures: 0, passes: 0 });
  });

  it.each<[string, RuntimeApp, keyof RolloutStatus, RegExp]>([
    [
      'an abort after success',
      app('b2', { phase: 'Succeeded', stable: v2, canary: v2, step: 3, weight: 100 }, req(ROLLOUT_ABORT_ANNOTATION)),
      'lastHandledAbort',
      /nothing to abort: the rollout is Succeeded/,
    ],
    ['a promote after an abort', app('b2', aborted, req(ROLLOUT_PROMOTE_ANNOTATION)), 'lastHandledPromote', /nothing to promote: the rollout is Aborted/],
    ['a retry while progressing', app('b2', progressing(), req(ROLLOUT_RETRY_ANNOTATION)), 'lastHandledRetry', /nothing to retry: the rollout is Progressing/],
  ])('%s is echoed with why it did nothing', (_name, input, field, message) => {
    const { rollout } = nextRollout({ app: input, replicas: [], now: t0 });
    expect(rollout?.[field]).toBe('r1');
    expect(rollout?.message).toMatch(message);
    expect(rollout?.phase).toBe(input.status?.rollout?.phase);
  });

  it('a retry once the spec asks for another release starts that one (the spec decides) and is echoed', () => {
    const { rollout } = nextRollout({ app: app('b3', aborted, req(ROLLOUT_RETRY_ANNOTATION)), replicas: [], now: t0 });
    expect(rollout).toMatchObject({ phase: 'Progressing', canary: v3, lastHandledRetry: 'r1' });
  });

  it('a request already echoed is not handled again', () => {
    const before = { ...aborted, lastHandledRetry: 'r1' };
    expect(nextRollout({ app: app('b2', before, req(ROLLOUT_RETRY_ANNOTATION)), replicas: [], now: t0 }).rollout).toEqual(before);
  });
});

describe('the rollout state machine: analysis', () => {
  const policy = (over: Partial<RolloutPolicy> = {}): RolloutPolicy => ({ steps: [{ weight: 10 }, { weight: 50 }], analysis, ...over });
  const at10 = (canary: [number, number], stable: [number, number] = [0, 0]) => [splitting(v2.release, 10, canary, stable)];

  it('waits for the interval, from the last judgement', () => {
    const before = progressing({ analysis: analysed() });
    expect(nextRollout({ app: app('b2', before, { policy: policy() }), replicas: at10([100, 0]), now: at(45) })).toEqual({ rollout: before, requeueAfter: 15_000 });
  });

  it('a passed interval records its counts and baseline, then the step moves on', () => {
    const before = progressing({ analysis: analysed({ baseline: { stable: { requests: 5, errors: 0 }, canary: { requests: 10, errors: 0 } } }) });
    const { rollout } = nextRollout({ app: app('b2', before, { policy: policy() }), replicas: at10([60, 1], [505, 5]), now: at(60) });
    expect(rollout).toMatchObject({ phase: 'Progressing', step: 1, weight: 50 });
    expect(rollout?.analysis).toEqual(
      analysed({
        stable: { requests: 500, errors: 5 },
        canary: { requests: 50, errors: 1 },
        baseline: { stable: { requests: 505, errors: 5 }, canary: { requests: 60, errors: 1 } },
        baselines: { '': { stable: { requests: 505, errors: 5 }, canary: { requests: 60, errors: 1 } } },
        passes: 0,
        checkedAt: '2026-01-01T00:01:00Z',
      }),
    );
  });

  it('a step with a timed pause and analysis needs both: a pass before the pause ends waits for it', () => {
    const before = progressing({ analysis: analysed() });
    const { rollout, requeueAfter } = nextRollout({
      app: app('b2', before, { policy: policy({ steps: [{ weight: 10, pause: { duration: '2m' } }, { weight: 50 }] }) }),
      replicas: at10([20, 0]),
      now: at(60),
    });
    expect(rollout).toMatchObject({ step: 0, analysis: { passes: 1 } });
    expect(requeueAfter).toBe(60_000);
  });

  it('too few requests is inconclusive: the baseline stays, another interval is waited for', () => {
    const before = progressing({ analysis: analysed() });
    const { rollout, requeueAfter } = nextRollout({ app: app('b2', before, { policy: policy() }), replicas: at10([9, 9]), now: at(60) });
    expect(rollout).toEqual({ ...before, analysis: analysed({ checkedAt: '2026-01-01T00:01:00Z' }) });
    expect(requeueAfter).toBe(60_000);
  });

  it('failing counts abort with the figures', () => {
    const { rollout } = nextRollout({ app: app('b2', progressing({ analysis: analysed() }), { policy: policy() }), replicas: at10([50, 41]), now: at(60) });
    expect(rollout).toMatchObject({ phase: 'Aborted', weight: 0, analysis: { failures: 1, canary: { requests: 50, errors: 41 } } });
    expect(rollout?.message).toBe('Analysis failed: 41 of 50 requests of build b2 failed (82 %), above the 5 % allowed. Build b1 serves all traffic.');
  });

  it('failures up to the limit are tolerated; past it, onFailure Pause waits for a promote, which moves on and forgives them', () => {
    const limited = policy({ analysis: { ...analysis, failureLimit: 1 }, onFailure: 'Pause' });
    const first = nextRollout({ app: app('b2', progressing({ analysis: analysed() }), { policy: limited }), replicas: at10([50, 41]), now: at(60) });
    expect(first.rollout).toMatchObject({ phase: 'Progressing', analysis: { failures: 1 } });
    expect(first.rollout?.message).toMatch(/failure 1, 1 tolerated/);
    const second = nextRollout({ app: app('b2', first.rollout, { policy: limited }), replicas: at10([100, 82]), now: at(120) }).rollout;
    expect(second).toMatchObject({ phase: 'Paused', weight: 10, analysis: { failures: 2 } });
    expect(second?.message).toMatch(/^Analysis failed: 41 of 50 .*Paused until a promote or an abort\.$/);
    // Paused by the analysis: no more judging, no moving on.
    expect(nextRollout({ app: app('b2', second, { policy: limited }), replicas: at10([1000, 0]), now: at(600) })).toEqual({ rollout: second });
    const promoted = nextRollout({ app: app('b2', second, { policy: limited, annotations: { [ROLLOUT_PROMOTE_ANNOTATION]: 'go' } }), replicas: at10([100, 82]), now: at(601) }).rollout;
    expect(promoted).toMatchObject({ phase: 'Progressing', step: 1, weight: 50, lastHandledPromote: 'go', analysis: { failures: 0, passes: 0 } });
  });

  it('a replica restarting mid-interval counts only its new run from zero: the other replica’s interval is not skewed', () => {
    const run = (name: string, canary: [number, number]) => ({ ...splitting(v2.release, 10, canary), rollout: { ...splitting(v2.release, 10, canary).rollout!, run: name } });
    const limit = policy({ analysis: { ...analysis, maxErrorPercent: 10 } });
    const thousand = { stable: { requests: 0, errors: 0 }, canary: { requests: 1000, errors: 0 } };
    const before = progressing({ analysis: analysed({ baseline: { stable: { requests: 0, errors: 0 }, canary: { requests: 2000, errors: 0 } }, baselines: { a1: thousand, b1: thousand } }) });
    // Replica a restarted (run a2, 500 requests since); b counted 600 more, 100 of them errors: 100 of 1,100 (9.1 %).
    const { rollout } = nextRollout({ app: app('b2', before, { policy: limit }), replicas: [run('a2', [500, 0]), run('b1', [1600, 100])], now: at(60) });
    expect(rollout).toMatchObject({
      phase: 'Progressing',
      step: 1,
      analysis: { canary: { requests: 1100, errors: 100 }, baselines: { a2: { canary: { requests: 500 } }, b1: { canary: { requests: 1600 } } } },
    });
    // a1's baseline is kept (bounded): a replica not counted for a moment goes on from its own when it is again.
    expect(Object.keys(rollout?.analysis?.baselines ?? {}).sort()).toEqual(['a1', 'a2', 'b1']);
  });

  it('a replica left out of one judgement (a late Lease) goes on from its own baseline when counted again, not its whole run (found in review)', () => {
    const run = (name: string, canary: [number, number]) => ({ ...splitting(v2.release, 10, canary), rollout: { ...splitting(v2.release, 10, canary).rollout!, run: name } });
    // The first step pauses until promoted, so the analysis judges interval after interval.
    const limit = policy({ steps: [{ weight: 10, pause: {} }, { weight: 50 }], analysis: { ...analysis, maxErrorPercent: 5 } });
    const zero = { stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } };
    let rollout = progressing({ analysis: analysed({ baseline: zero, baselines: {} }) });
    // r2's early errors are judged once, beside r1's clean requests: 40 of 2,400 (1.7 %), passed.
    rollout = nextRollout({ app: app('b2', rollout, { policy: limit }), replicas: [run('r1', [2000, 0]), run('r2', [400, 40])], now: at(60) }).rollout!;
    expect(rollout).toMatchObject({ phase: 'Paused', analysis: { passes: 1, failures: 0 } });
    rollout = nextRollout({ app: app('b2', rollout, { policy: limit }), replicas: [run('r1', [4000, 0])], now: at(120) }).rollout!;
    // r2 back with one more request, no error: the interval is r1's 100 and r2's 1, not r2's 40 errors again.
    rollout = nextRollout({ app: app('b2', rollout, { policy: limit }), replicas: [run('r1', [4100, 0]), run('r2', [401, 40])], now: at(180) }).rollout!;
    expect(rollout).toMatchObject({ phase: 'Paused', analysis: { canary: { requests: 101, errors: 0 }, failures: 0 } });
  });

  it('a replica restart (totals below the baseline) counts the totals of that build', () => {
    const before = progressing({ analysis: analysed({ baseline: { stable: { requests: 0, errors: 0 }, canary: { requests: 500, errors: 0 } } }) });
    const { rollout } = nextRollout({ app: app('b2', before, { policy: policy() }), replicas: at10([20, 10]), now: at(60) });
    expect(rollout).toMatchObject({ phase: 'Aborted', analysis: { canary: { requests: 20, errors: 10 } } });
  });
});
