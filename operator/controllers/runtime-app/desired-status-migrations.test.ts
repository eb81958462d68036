// desiredStatus while the active build's migrations are pending or failed: Ready says so and names what serves.
import { describe, expect, it } from 'vitest';
import type { MigrationsStatus } from '../../../src/apis/v1alpha1/migrations.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { releaseOf } from '../../../src/runtime-contract/releases.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';
import { desiredStatus } from './desired-status.ts';

const t1 = new Date('2026-01-01T00:00:00Z');
const CHECKSUM = 'c'.repeat(64);
const v1 = releaseOf({ displayName: 'a', activeBuildId: 'b1' })!;
const app = (migrations: MigrationsStatus | undefined): RuntimeApp => ({
  metadata: { name: 'hello', namespace: 'p', generation: 2 },
  spec: { displayName: 'a', activeBuildId: 'b2', migrations: { buildId: 'b2', database: 'notes', checksum: CHECKSUM } },
  status: { served: v1, ...(migrations ? { migrations } : {}) },
});
const base = { buildId: 'b2', database: 'notes', checksum: CHECKSUM };
const servingOld: RuntimeAppReport = { namespace: 'p', app: 'hello', hosts: ['hello.p'], servingBuildId: 'b1', servedGeneration: 1, observedGeneration: 2 };
const servingNew: RuntimeAppReport = { ...servingOld, servingBuildId: 'b2', servedGeneration: 2 };

describe('desiredStatus with migrations', () => {
  it.each<[string, MigrationsStatus | undefined, RuntimeAppReport, string, string, RegExp]>([
    [
      'pending: the previous build serves',
      { ...base, phase: 'Pending', message: 'Database notes is not ready yet.' },
      servingOld,
      'False',
      'MigrationsPending',
      /not applied yet: Database notes is not ready yet\. Build b1 keeps serving\./,
    ],
    [
      'failed: file, statement and message',
      { ...base, phase: 'Failed', applied: [], failed: { file: '0003_a.sql', statement: 'INSERT INTO x VALUES (1);', message: 'no such table: x' } },
      servingOld,
      'False',
      'MigrationFailed',
      /^Migration 0003_a\.sql of build b2 failed at statement `INSERT INTO x VALUES \(1\);`: no such table: x\. It was rolled back; deploy a fixed build\. Build b1 keeps serving\.$/,
    ],
    ['applied: served as usual', { ...base, phase: 'Applied', applied: ['0003_a.sql'] }, servingNew, 'True', 'Serving', /^The app is served/],
  ])('%s → Ready=%s %s', (_name, migrations, report, status, reason, message) => {
    const result = desiredStatus(app(migrations), t1, { kind: 'observed', replicas: [report], buildExists: true });
    const ready = findCondition(result.conditions, 'Ready');
    expect(ready).toMatchObject({ status, reason });
    expect(ready?.message).toMatch(message);
    expect(findCondition(result.conditions, 'MigrationsApplied')?.status).toBe(status);
  });

  it('no MigrationsApplied condition for an app without migrations', () => {
    const plain: RuntimeApp = { metadata: { name: 'hello', namespace: 'p', generation: 2 }, spec: { displayName: 'a', activeBuildId: 'b2' } };
    const result = desiredStatus(plain, t1, { kind: 'observed', replicas: [servingNew], buildExists: true });
    expect(findCondition(result.conditions, 'MigrationsApplied')).toBeUndefined();
  });
});
