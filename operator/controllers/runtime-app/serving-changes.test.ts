import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { ServingChanges } from './serving-changes.ts';

const app = (resourceVersion: string, over: Partial<RuntimeApp> = {}): RuntimeApp => ({
  metadata: { namespace: 'p', name: 'a', resourceVersion, generation: 1 },
  spec: { displayName: 'A', activeBuildId: 'b-1' },
  ...over,
});
const at = (resourceVersion: string, generation: number) => ({ namespace: 'p', name: 'a', resourceVersion, generation });

describe('ServingChanges', () => {
  it('keeps the version of the last change a replica acts on, through writes of conditions and history', () => {
    const changes = new ServingChanges();
    changes.changed('p/a', app('10'));
    changes.changed('p/a', app('11', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }));
    expect(changes.version('p/a', app('11'))).toBe('10');
    // A new spec is a change; the release served recorded in the status is one only while migrations hold the spec back.
    const spec = { displayName: 'A', activeBuildId: 'b-2' };
    changes.changed('p/a', app('12', { metadata: at('12', 2), spec }));
    expect(changes.version('p/a', app('12'))).toBe('12');
    changes.changed('p/a', app('13', { metadata: at('13', 2), spec, status: { served: { release: 'r', buildId: 'b-1' } } }));
    expect(changes.version('p/a', app('13'))).toBe('12');
    const held = { ...spec, migrations: { buildId: 'b-2', database: 'db', checksum: 'c' } } as RuntimeApp['spec'];
    changes.changed('p/a', app('14', { metadata: at('14', 3), spec: held, status: { served: { release: 'r', buildId: 'b-1' } } }));
    changes.changed('p/a', app('15', { metadata: at('15', 3), spec: held, status: { served: { release: 'r0', buildId: 'b-0' } } }));
    expect(changes.version('p/a', app('15'))).toBe('15');
  });

  it('counts an app not followed from its own version, and forgets one gone', () => {
    const changes = new ServingChanges();
    expect(changes.version('p/a', app('40'))).toBe('40');
    changes.changed('p/a', app('41'));
    changes.changed('p/a', undefined);
    expect(changes.version('p/a', app('45'))).toBe('45');
  });
});
