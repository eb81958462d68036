import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { ServingChanges } from './serving-changes.ts';

const app = (resourceVersion: string, over: Partial<RuntimeApp> = {}): RuntimeApp => ({
  metadata: { namespace: 'p', name: 'a', resourceVersion, generation: 1 },
  spec: { displayName: 'A', activeBuildId: 'b-1' },
  ...over,
});

describe('ServingChanges', () => {
  it('keeps the version of the last change a replica acts on, through writes of conditions and history', () => {
    const changes = new ServingChanges();
    changes.changed('p/a', app('10'));
    changes.changed('p/a', app('11', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }));
    expect(changes.version('p/a', app('11'))).toBe('10');
    // A new spec, and a release the status names (what a replica serves), are changes.
    changes.changed('p/a', app('12', { metadata: { namespace: 'p', name: 'a', resourceVersion: '12', generation: 2 }, spec: { displayName: 'A', activeBuildId: 'b-2' } }));
    expect(changes.version('p/a', app('12'))).toBe('12');
    changes.changed(
      'p/a',
      app('13', {
        metadata: { namespace: 'p', name: 'a', resourceVersion: '13', generation: 2 },
        spec: { displayName: 'A', activeBuildId: 'b-2' },
        status: { served: { release: 'r', buildId: 'b-2' } },
      }),
    );
    expect(changes.version('p/a', app('13'))).toBe('13');
  });

  it('counts an app not followed from its own version, and forgets one gone', () => {
    const changes = new ServingChanges();
    expect(changes.version('p/a', app('40'))).toBe('40');
    changes.changed('p/a', app('41'));
    changes.changed('p/a', undefined);
    expect(changes.version('p/a', app('45'))).toBe('45');
  });
});
