import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf, servingPlan } from '../src/runtime-contract/releases.ts';
import { projectRuntimeApp } from './runtime-app-projection.ts';

describe('projectRuntimeApp', () => {
  it('keeps what the serving plan reads and drops the status written for people', () => {
    const served = releaseOf({ displayName: 'web', activeBuildId: 'b-old' })!;
    const app: RuntimeApp = {
      metadata: { name: 'web', namespace: 'p', generation: 2, resourceVersion: '7' },
      spec: { displayName: 'web', activeBuildId: 'b-new', migrations: { buildId: 'b-new', database: 'notes', checksum: 'a'.repeat(64) } },
      status: {
        served,
        migrations: { buildId: 'b-new', database: 'notes', checksum: 'a'.repeat(64), phase: 'Pending' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        history: [{ buildId: 'b-old', activatedAt: '2026-01-01T00:00:00Z' }],
        url: 'https://web.example',
        hosts: ['web.example'],
        servingReplicas: 3,
      },
    };
    const projected = projectRuntimeApp(app);
    expect(servingPlan(projected)).toEqual(servingPlan(app));
    expect(projected.metadata).toEqual(app.metadata);
    expect(projected.spec).toEqual(app.spec);
    expect(Object.keys(projected.status ?? {}).sort()).toEqual(['migrations', 'served']);
  });
});
