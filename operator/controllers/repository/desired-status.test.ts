import { describe, expect, it } from 'vitest';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { statusChanged } from '../../../src/conditions/index.ts';
import { desiredStatus, statusPatch, type Maintenance, type MaintenanceView, type Observation } from './desired-status.ts';

const t0 = new Date('2030-01-01T00:00:00Z');
const t1 = new Date('2030-01-01T00:05:00Z');

function repo(status?: Repository['status']): Repository {
  return { metadata: { namespace: 'p', name: 'r', generation: 2 }, spec: { owner: 'acme', name: 'app' }, ...(status ? { status } : {}) };
}

const ready = (s: Repository['status']) => s?.conditions?.find((c) => c.type === 'Ready');
const healthy = (s: Repository['status']) => s?.conditions?.find((c) => c.type === 'Healthy');

const clean: MaintenanceView = { packs: { count: 0, bytes: 0 }, checkpoint: null, lastCompaction: null, lastFsck: null, health: { status: 'ok', problems: [] } };

/** The bucket holds incarnation `repoId` at `seq`, and its overview says `maintenance` (a clean one by default). */
function hold(repoId: string, seq: number, maintenance: Maintenance = { kind: 'overview', overview: clean }): Observation {
  return { kind: 'hold', repoId, seq, maintenance };
}

describe('desiredStatus', () => {
  it('reports an available repository with its incarnation, seq and pristine flag', () => {
    const status = desiredStatus(repo(), hold('id-1', 0), t0);
    expect(status).toMatchObject({ repoId: 'id-1', headSeq: '0', pristine: true, observedGeneration: 2 });
    expect(ready(status)).toMatchObject({ status: 'True', reason: 'Available', observedGeneration: 2, lastTransitionTime: '2030-01-01T00:00:00Z' });
  });

  it('writes nothing again for an unchanged repository, and only seq and pristine after a push', () => {
    const first = desiredStatus(repo(), hold('id-1', 0), t0);
    expect(statusChanged(first, desiredStatus(repo(first), hold('id-1', 0), t1))).toBe(false);
    const pushed = desiredStatus(repo(first), hold('id-1', 3), t1);
    expect(pushed).toMatchObject({ headSeq: '3', pristine: false });
    expect(ready(pushed)).toEqual(ready(first));
  });

  it('keeps the claim and the last known seq while the store is unreachable, with Ready Unknown', () => {
    const before = desiredStatus(repo(), hold('id-1', 5), t0);
    const status = desiredStatus(repo(before), { kind: 'store-unavailable', deleting: false }, t1);
    expect(status).toMatchObject({ repoId: 'id-1', headSeq: '5', pristine: false });
    expect(ready(status)).toMatchObject({ status: 'Unknown', reason: 'StoreUnavailable', lastTransitionTime: '2030-01-01T00:05:00Z' });
  });

  it.each<[Observation, string, string, RegExp]>([
    [{ kind: 'conflict', holder: 'other/acme-app' }, 'False', 'NameConflict', /other\/acme-app already holds acme\/app/],
    [{ kind: 'exists', repoId: 'id-3' }, 'False', 'RepositoryExists', /cloudwright\.dev\/adopt-repo-id=id-3/],
    [{ kind: 'lost', claim: 'id-1' }, 'False', 'RepositoryLost', /was deleted from the bucket outside this resource/],
    [{ kind: 'lost', claim: 'id-1', found: 'id-2' }, 'False', 'RepositoryLost', /another repository \(repoId id-2\)/],
    [{ kind: 'invalid-name', detail: '"acme/x.git" is not a repository name' }, 'False', 'InvalidName', /x\.git/],
    [{ kind: 'owner-not-allowed', project: 'shop' }, 'False', 'OwnerNotAllowed', /project shop's: its repositories are shop\/<name>/],
    [{ kind: 'store-unavailable', deleting: true }, 'False', 'StoreUnavailable', /Deleting the bucket data of acme\/app failed/],
    [{ kind: 'store-error', errorName: 'CorruptObjectError', deleting: false }, 'False', 'StoreError', /\(CorruptObjectError\)/],
    [{ kind: 'store-error', errorName: 'Error', deleting: true }, 'False', 'DeletionFailed', /Deleting the bucket data/],
  ])('%j → Ready %s, %s', (observation, status, reason, message) => {
    const condition = ready(desiredStatus(repo(), observation, t0));
    expect(condition).toMatchObject({ status, reason });
    expect(condition?.message).toMatch(message);
  });
});

describe('desiredStatus: maintenance', () => {
  const maintained: MaintenanceView = {
    packs: { count: 3, bytes: 40_960 },
    checkpoint: { seq: 64, at: '2030-01-01T00:01:00.250Z' },
    lastCompaction: { at: '2030-01-01T00:02:00.000Z', outcome: 'succeeded', packsBefore: 17, packsAfter: 3, bytesBefore: 50_000, bytesAfter: 40_960 },
    lastFsck: { at: '2030-01-01T00:03:00.999Z', seq: 70, outcome: 'succeeded', missingObjects: 0, problems: [] },
    health: { status: 'ok', problems: [] },
  };
  const missing: MaintenanceView = {
    ...maintained,
    lastFsck: { at: '2030-01-01T00:04:00Z', seq: 70, outcome: 'succeeded', missingObjects: 3, problems: ['missing blob 1234'] },
    health: {
      status: 'error',
      problems: [{ problem: 'git fsck of seq 70 found 3 missing objects', suggestion: 'Restore the missing packs from a backup; then run POST /api/ops/fsck.' }],
    },
  };

  it('copies packs, the last checkpoint, compaction and fsck, times in whole seconds, and reports Healthy', () => {
    const status = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: maintained }), t0);
    expect(status).toMatchObject({
      headSeq: '70',
      packs: 3,
      packBytes: 40_960,
      lastCheckpoint: { seq: '64', time: '2030-01-01T00:01:00Z' },
      lastCompaction: { time: '2030-01-01T00:02:00Z', outcome: 'succeeded', packsBefore: 17, packsAfter: 3 },
      lastFsck: { time: '2030-01-01T00:03:00Z', seq: '70', outcome: 'succeeded', missingObjects: 0 },
    });
    expect(healthy(status)).toMatchObject({ status: 'True', reason: 'Healthy', observedGeneration: 2, message: 'Maintenance reports nothing about acme/app that needs attention.' });
    expect(statusChanged(status, desiredStatus(repo(status), hold('id-1', 70, { kind: 'overview', overview: maintained }), t1))).toBe(false);
  });

  it('reports missing objects as Healthy False, Error, naming the count and what to do, and leaves Ready alone', () => {
    const status = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: missing }), t0);
    expect(status.lastFsck).toMatchObject({ missingObjects: 3 });
    expect(healthy(status)).toMatchObject({
      status: 'False',
      reason: 'Error',
      message: 'Git fsck of seq 70 found 3 missing objects. Restore the missing packs from a backup; then run POST /api/ops/fsck.',
    });
    expect(ready(status)).toMatchObject({ status: 'True', reason: 'Available' });
  });

  it('joins several problems, Degraded, in a message of bounded length', () => {
    const problems = [
      { problem: 'the last compaction failed', suggestion: 'Run POST /api/ops/compact and read its log' },
      { problem: '40 live packs: fetches read every one', suggestion: 'Check that a maintainer runs.' },
    ];
    const degraded = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: { ...maintained, health: { status: 'degraded', problems } } }), t0);
    expect(healthy(degraded)).toMatchObject({
      status: 'False',
      reason: 'Degraded',
      message: 'The last compaction failed. Run POST /api/ops/compact and read its log. 40 live packs: fetches read every one. Check that a maintainer runs.',
    });
    const many = Array.from({ length: 40 }, (_, i) => ({ problem: `problem ${i} ${'x'.repeat(40)}`, suggestion: 'Fix it.' }));
    const long = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: { ...maintained, health: { status: 'degraded', problems: many } } }), t0);
    expect(healthy(long)?.message).toHaveLength(1024);
    expect(healthy(long)?.message.endsWith('…')).toBe(true);
  });

  it('drops a record the overview no longer has, and the patch deletes it', () => {
    const before = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: maintained }), t0);
    const after = desiredStatus(repo(before), hold('id-1', 71, { kind: 'overview', overview: { ...maintained, lastFsck: null } }), t1);
    expect(after.lastFsck).toBeUndefined();
    expect(statusPatch(before, after)).toMatchObject({ lastFsck: null, headSeq: '71', lastCheckpoint: { seq: '64' } });
  });

  it('patches nested fields away, and replaces lists', () => {
    const before = { lastCheckpoint: { seq: '64', time: '2030-01-01T00:01:00Z' }, conditions: [], headSeq: '1', pristine: false };
    expect(statusPatch(before, { lastCheckpoint: { seq: '65' }, conditions: [], headSeq: '2' })).toEqual({ lastCheckpoint: { seq: '65', time: null }, conditions: [], headSeq: '2', pristine: null });
    expect(statusPatch(undefined, { headSeq: '0' })).toEqual({ headSeq: '0' });
  });

  it('leaves out a time that does not parse rather than write one the apiserver refuses', () => {
    const torn = { ...maintained, checkpoint: { seq: 64, at: 'yesterday' } };
    expect(desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: torn }), t0).lastCheckpoint).toEqual({ seq: '64' });
  });

  it.each<[Maintenance, string, RegExp]>([
    [{ kind: 'store-unavailable' }, 'StoreUnavailable', /cannot be reached/],
    [{ kind: 'store-error', errorName: 'CorruptObjectError' }, 'StoreError', /maintenance status of acme\/app cannot be read \(CorruptObjectError\)/],
  ])('keeps Ready and the last known maintenance fields when the overview cannot be read (%j): Healthy Unknown, %s', (maintenance, reason, message) => {
    const before = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: maintained }), t0);
    const status = desiredStatus(repo(before), hold('id-1', 71, maintenance), t1);
    expect(status).toMatchObject({ headSeq: '71', packs: 3, lastFsck: before.lastFsck, lastCheckpoint: before.lastCheckpoint });
    expect(ready(status)).toEqual(ready(before));
    expect(healthy(status)).toMatchObject({ status: 'Unknown', reason, lastTransitionTime: '2030-01-01T00:05:00Z' });
    expect(healthy(status)?.message).toMatch(message);
  });

  it('is Unknown while the store cannot be reached at all, and absent while the resource holds no repository', () => {
    const before = desiredStatus(repo(), hold('id-1', 70, { kind: 'overview', overview: missing }), t0);
    expect(healthy(desiredStatus(repo(before), { kind: 'store-unavailable', deleting: false }, t1))).toMatchObject({ status: 'Unknown', reason: 'StoreUnavailable' });
    const lost = desiredStatus(repo(before), { kind: 'lost', claim: 'id-1' }, t1);
    expect(healthy(lost)).toBeUndefined();
    expect(lost.lastFsck).toEqual(before.lastFsck); // the last known, as headSeq
    expect(healthy(desiredStatus(repo(), { kind: 'conflict', holder: 'other/acme-app' }, t0))).toBeUndefined();
  });
});
