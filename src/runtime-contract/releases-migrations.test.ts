import { describe, expect, it } from 'vitest';
import type { MigrationsStatus } from '../apis/v1alpha1/migrations.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { migrationsPending, releaseOf, servingPlan } from './releases.ts';

const CHECKSUM = 'a'.repeat(64);
const before = releaseOf({ displayName: 'web', activeBuildId: 'b-old' });

function app(status: RuntimeApp['status'], migrations = { buildId: 'b-new', database: 'notes', checksum: CHECKSUM }): RuntimeApp {
  return { metadata: { name: 'web', namespace: 'p', generation: 2 }, spec: { displayName: 'web', activeBuildId: 'b-new', migrations }, ...(status ? { status } : {}) };
}
const answered = (phase: MigrationsStatus['phase'], checksum = CHECKSUM): MigrationsStatus => ({ buildId: 'b-new', database: 'notes', checksum, phase });

describe('servingPlan with migrations', () => {
  it('holds a build whose migrations are not applied: what served before keeps serving, or nothing', () => {
    expect(servingPlan(app({ served: before! }))).toEqual({ kind: 'single', release: before });
    expect(servingPlan(app({ served: before!, migrations: answered('Pending') }))).toEqual({ kind: 'single', release: before });
    expect(servingPlan(app({ served: before!, migrations: answered('Failed') }))).toEqual({ kind: 'single', release: before });
    expect(servingPlan(app(undefined))).toEqual({ kind: 'held' });
  });

  it('serves the spec once they are applied (for these very files)', () => {
    expect(servingPlan(app({ served: before!, migrations: answered('Applied') }))).toEqual({ kind: 'spec' });
    expect(migrationsPending(app({ migrations: answered('Applied', 'b'.repeat(64)) }))).toBe(true);
  });

  it('ignores migrations named for another build than the active one, and apps without', () => {
    expect(servingPlan(app({ served: before! }, { buildId: 'b-other', database: 'notes', checksum: CHECKSUM }))).toEqual({ kind: 'spec' });
    const plain: RuntimeApp = { metadata: { name: 'web', namespace: 'p' }, spec: { displayName: 'web', activeBuildId: 'b-new' } };
    expect(servingPlan(plain)).toEqual({ kind: 'spec' });
  });
});
