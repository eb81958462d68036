import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { linksDatabase } from './linked-environment.ts';

const linked = (database: string) => ({ DB: { database } });
const release = (databaseEnvironment?: ReturnType<typeof linked>) => ({ release: 'r', buildId: 'b-1', ...(databaseEnvironment ? { databaseEnvironment } : {}) });

describe('linksDatabase', () => {
  it('finds a Database linked by the spec, the stable release of a rollout or the release held for pending migrations', () => {
    const app = (status?: RuntimeApp['status'], spec: Partial<RuntimeApp['spec']> = {}): RuntimeApp =>
      ({ metadata: { namespace: 'p', name: 'a' }, spec: { displayName: 'a', ...spec }, ...(status ? { status } : {}) }) as RuntimeApp;
    expect(linksDatabase(app(undefined, { databaseEnvironment: linked('main') }), 'main')).toBe(true);
    expect(linksDatabase(app(undefined, { databaseEnvironment: linked('main') }), 'other')).toBe(false);
    expect(linksDatabase(app({ rollout: { phase: 'Progressing', stable: release(linked('old')), canary: release(), step: 0, weight: 10 } } as RuntimeApp['status']), 'old')).toBe(true);
    // Migrations pending: the spec links no database any more, but the release still served does.
    expect(linksDatabase(app({ served: release(linked('kept')) } as RuntimeApp['status']), 'kept')).toBe(true);
    expect(linksDatabase(app(), 'main')).toBe(false);
  });
});
