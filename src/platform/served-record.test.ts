import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { releaseOf } from '../runtime-contract/releases.ts';
import { servedRecordSettled } from './served-record.ts';

const spec = { displayName: 'web', activeBuildId: 'b2', environment: { A: '1' } };
const current = releaseOf(spec)!;
const older = releaseOf({ ...spec, activeBuildId: 'b1' })!;
const deployed = (status: 'True' | 'False' | 'Unknown', reason: string, observedGeneration = 4) => ({
  type: 'Deployed',
  status,
  reason,
  observedGeneration,
  message: '',
  lastTransitionTime: '2026-12-02T00:00:00Z',
});
const app = (over: Partial<RuntimeApp['spec']>, status: RuntimeApp['status'] = {}): RuntimeApp => ({ metadata: { name: 'web', namespace: 'p', generation: 4 }, spec: { ...spec, ...over }, status });

describe('servedRecordSettled: whether a build with migrations may follow what the app asks for now', () => {
  it.each<[string, RuntimeApp, boolean]>([
    ['nothing active', app({ activeBuildId: undefined }), true],
    ['the current release recorded as served', app({}, { served: current }), true],
    ['an older release recorded, the current one converging', app({}, { served: older, conditions: [deployed('False', 'RollingOut')] }), false],
    ['nothing recorded yet (a first deploy converging)', app({}, { conditions: [deployed('False', 'RollingOut')] }), false],
    ['nothing said of this generation yet', app({}, { served: older, conditions: [deployed('True', 'Serving', 3)] }), false],
    ['the current build failed to load', app({}, { served: older, conditions: [deployed('False', 'BuildFailed')] }), true],
    ["the operator's cache of Builds a moment behind the deploy", app({}, { served: older, conditions: [deployed('False', 'BuildNotFound')] }), false],
    ['no runtime replica runs', app({}, { conditions: [deployed('Unknown', 'RuntimeUnavailable')] }), true],
    [
      'a rollout recorded (its stable release serves meanwhile)',
      app({ rollout: { steps: [{ weight: 10 }] } } as Partial<RuntimeApp['spec']>, { served: older, rollout: { phase: 'Succeeded', stable: older, step: 1, weight: 100 } } as RuntimeApp['status']),
      true,
    ],
    [
      'a rollout policy the operator has not recorded a rollout of yet',
      app({ rollout: { steps: [{ weight: 10 }] } } as Partial<RuntimeApp['spec']>, { conditions: [deployed('False', 'RollingOut')] }),
      false,
    ],
    ['the current spec held for its own migrations', app({ migrations: { buildId: 'b2', checksum: 'c', database: 'notes' } }, { served: older }), true],
  ])('%s: %s', (_case, given, settled) => {
    expect(servedRecordSettled(given)).toBe(settled);
  });
});
