// nextHistory: what status.history records as the spec's build changes and the runtime serves it.
import { describe, expect, it } from 'vitest';
import { MAX_HISTORY, type Activation } from '../../../src/apis/v1alpha1/activation.ts';
import type { RolloutStatus } from '../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf } from '../../../src/runtime-contract/releases.ts';
import { nextHistory } from './history.ts';

const t1 = new Date('2026-01-01T00:00:00Z');
const t2 = new Date('2026-01-01T00:01:00Z');
const app = (buildId: string | undefined, history: Activation[] = [], annotations: Record<string, string> = {}): RuntimeApp => ({
  metadata: { name: 'web', namespace: 'p', generation: 2, annotations },
  spec: { displayName: 'web', ...(buildId ? { activeBuildId: buildId } : {}) },
  status: { history },
});
const deployed = (buildId: string, rollout?: RolloutStatus): RuntimeAppStatus => ({
  servingBuildId: buildId,
  conditions: [{ type: 'Deployed', status: 'True', reason: 'Serving', message: '', lastTransitionTime: t1.toISOString() }],
  ...(rollout ? { rollout } : {}),
});
const rollingOut: RuntimeAppStatus = { conditions: [{ type: 'Deployed', status: 'False', reason: 'RollingOut', message: '', lastTransitionTime: t1.toISOString() }] };
const v1 = releaseOf({ displayName: 'a', activeBuildId: 'b1' })!;
const v2 = releaseOf({ displayName: 'a', activeBuildId: 'b2' })!;
const rollout = (phase: RolloutStatus['phase'], weight: number): RolloutStatus => ({ phase, stable: v1, canary: v2, step: 0, weight });

describe('nextHistory', () => {
  it('records nothing before a first build', () => {
    expect(nextHistory(app(undefined), rollingOut, t1)).toBeUndefined();
  });

  it('records an activation by kubectl without "by", then the time it was served, once', () => {
    const first = nextHistory(app('b1'), rollingOut, t1)!;
    expect(first).toEqual([{ buildId: 'b1', activatedAt: t1.toISOString() }]);
    const served = nextHistory(app('b1', first), deployed('b1'), t2)!;
    expect(served).toEqual([{ buildId: 'b1', activatedAt: t1.toISOString(), servedAt: t2.toISOString() }]);
    expect(nextHistory(app('b1', served), deployed('b1'), new Date('2026-01-02T00:00:00Z'))).toEqual(served);
  });

  it('takes "by" and the commit from the annotations only when they name the activated build', () => {
    const push = { 'cloudwright.dev/deployed-by': 'push:acme/web@0123abcd', 'cloudwright.dev/deployed-build': 'b2' };
    expect(nextHistory(app('b2', [], push), rollingOut, t1)?.[0]).toMatchObject({ by: 'push:acme/web@0123abcd', commit: '0123abcd' });
    expect(nextHistory(app('b3', [], push), rollingOut, t1)?.[0]?.by).toBeUndefined();
  });

  it('keeps a hand-written "by" within what the status schema takes', () => {
    const odd = { 'cloudwright.dev/deployed-by': `me\nand\tyou ${'x'.repeat(300)}`, 'cloudwright.dev/deployed-build': 'b2' };
    const by = nextHistory(app('b2', [], odd), rollingOut, t1)?.[0]?.by;
    expect(by).toMatch(/^meandyou x+$/);
    expect(by).toHaveLength(256);
    const blank = { 'cloudwright.dev/deployed-by': '\n', 'cloudwright.dev/deployed-build': 'b2' };
    expect(nextHistory(app('b2', [], blank), rollingOut, t1)?.[0]).not.toHaveProperty('by');
  });

  it('marks a build active before as a rollback, newest first, and keeps at most the bound', () => {
    const many = Array.from({ length: MAX_HISTORY }, (_, i) => ({ buildId: `b${i + 1}`, activatedAt: t1.toISOString() }));
    const next = nextHistory(app('b5', many), rollingOut, t2)!;
    expect(next).toHaveLength(MAX_HISTORY);
    expect(next[0]).toEqual({ buildId: 'b5', activatedAt: t2.toISOString(), rollback: true });
    expect(next[1]?.buildId).toBe('b1');
  });

  it('records the weights of a rollout and counts its build served only when it succeeds', () => {
    let history = nextHistory(app('b2', [{ buildId: 'b1', activatedAt: t1.toISOString(), servedAt: t1.toISOString() }]), deployed('b2', rollout('Progressing', 10)), t1)!;
    expect(history[0]).toEqual({ buildId: 'b2', activatedAt: t1.toISOString(), steps: [{ weight: 10, at: t1.toISOString() }] });
    history = nextHistory(app('b2', history), deployed('b2', rollout('Paused', 50)), t2)!;
    history = nextHistory(app('b2', history), deployed('b2', rollout('Succeeded', 100)), t2)!;
    expect(history[0]).toMatchObject({ steps: [{ weight: 10 }, { weight: 50 }, { weight: 100 }], servedAt: t2.toISOString() });
  });

  it('records an aborted rollout, never served', () => {
    const history = nextHistory(app('b2', [{ buildId: 'b2', activatedAt: t1.toISOString() }]), deployed('b1', rollout('Aborted', 0)), t2)!;
    expect(history[0]).toEqual({ buildId: 'b2', activatedAt: t1.toISOString(), abortedAt: t2.toISOString() });
  });
});
