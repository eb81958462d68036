import { describe, expect, it } from 'vitest';
import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf } from '../../../src/runtime-contract/releases.ts';
import { withServed } from './served-release.ts';

const v1 = releaseOf({ displayName: 'a', activeBuildId: 'b1' })!;
const v2 = releaseOf({ displayName: 'a', activeBuildId: 'b2' })!;
const deployed = (status: 'True' | 'False', observedGeneration = 3) => ({
  type: 'Deployed',
  status,
  reason: status === 'True' ? 'Serving' : 'BuildFailed',
  message: '',
  observedGeneration,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const app = (over: Partial<RuntimeApp['spec']> = {}, status: RuntimeAppStatus = {}): RuntimeApp => ({
  metadata: { namespace: 'p', name: 'a', generation: 3 },
  spec: { displayName: 'a', activeBuildId: 'b2', ...over },
  status,
});

describe('withServed', () => {
  it('records the spec’s release once every replica serves it, and keeps what it said before that', () => {
    expect(withServed(app(), { served: v1, conditions: [deployed('True')] }).served).toEqual(v2);
    // Not served (a build that fails to load): the replicas keep the earlier release, and so does the status.
    expect(withServed(app(), { served: v1, conditions: [deployed('False')] }).served).toEqual(v1);
    // Served at an earlier generation only.
    expect(withServed(app(), { served: v1, conditions: [deployed('True', 2)] }).served).toEqual(v1);
    expect(withServed(app(), { conditions: [deployed('False')] }).served).toBeUndefined();
  });

  it('keeps it while migrations hold the spec back, and records the stable release an aborted rollout serves', () => {
    const held = { migrations: { buildId: 'b2', checksum: 'c', database: 'db' } };
    expect(withServed(app(held), { served: v1, conditions: [deployed('True')] }).served).toEqual(v1);
    const rollout = { steps: [{ weight: 50 }] };
    const aborted: RuntimeAppStatus = { served: v2, conditions: [deployed('True')], rollout: { phase: 'Aborted', stable: v1, canary: v2, step: 0, weight: 0 } };
    expect(withServed(app({ rollout }), aborted).served).toEqual(v1);
    // A split serves both: what is served with nothing held back is not one release, so it stays as it was.
    const split: RuntimeAppStatus = { served: v1, conditions: [deployed('True')], rollout: { phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 50 } };
    expect(withServed(app({ rollout }), split).served).toEqual(v1);
  });
});
