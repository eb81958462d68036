import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { impliedReport } from './implied-report.ts';
import { releaseOf } from './releases.ts';

const settings = { domain: 'Apps.Test', scheme: 'http' as const, port: 8080 };
const app = (over: Partial<RuntimeApp> = {}): RuntimeApp => ({
  metadata: { namespace: 'p', name: 'Shop', generation: 4, resourceVersion: '9' },
  spec: { displayName: 'Shop', activeBuildId: 'b-2' },
  ...over,
});
const release = (buildId: string, digest: string) => ({ release: digest, buildId });

describe('impliedReport', () => {
  it('is the spec’s build served at the app’s generation on its default host alone', () => {
    expect(impliedReport(app(), settings)).toEqual({
      namespace: 'p',
      app: 'Shop',
      servingBuildId: 'b-2',
      url: 'http://shop.p.apps.test:8080',
      hosts: ['shop.p.apps.test'],
      servedGeneration: 4,
      observedGeneration: 4,
    });
    expect(impliedReport(app(), { domain: 'apps.test', scheme: 'https' })?.url).toBe('https://shop.p.apps.test');
  });

  it('names the one release a finished rollout keeps', () => {
    const aborted = app({
      spec: { displayName: 'Shop', activeBuildId: 'b-2', rollout: { steps: [{ weight: 50 }] } },
      status: { rollout: { phase: 'Aborted', stable: release('b-1', 'r1'), canary: release('b-2', 'r2'), step: 0, weight: 50 } },
    } as Partial<RuntimeApp>);
    expect(impliedReport(aborted, settings)?.servingBuildId).toBe('b-1');
  });

  it('implies nothing of an app without a build, being deleted, or in a rollout’s split', () => {
    expect(impliedReport(app({ spec: { displayName: 'Shop' } }), settings)).toBeUndefined();
    expect(impliedReport(app({ metadata: { namespace: 'p', name: 'shop', generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' } }), settings)).toBeUndefined();
    const spec = { displayName: 'Shop', activeBuildId: 'b-2', rollout: { steps: [{ weight: 50 }] } };
    const split = app({ spec, status: { rollout: { phase: 'Progressing', stable: release('b-1', 'r1'), canary: releaseOf(spec)!, step: 0, weight: 50 } } } as Partial<RuntimeApp>);
    expect(impliedReport(split, settings)).toBeUndefined();
  });
});
