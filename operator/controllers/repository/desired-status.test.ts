import { describe, expect, it } from 'vitest';
import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { statusChanged } from '../../../src/conditions/index.ts';
import { desiredStatus, type Observation } from './desired-status.ts';

const t0 = new Date('2030-01-01T00:00:00Z');
const t1 = new Date('2030-01-01T00:05:00Z');

function repo(status?: Repository['status']): Repository {
  return { metadata: { namespace: 'p', name: 'r', generation: 2 }, spec: { owner: 'acme', name: 'app' }, ...(status ? { status } : {}) };
}

const ready = (s: Repository['status']) => s?.conditions?.find((c) => c.type === 'Ready');

describe('desiredStatus', () => {
  it('reports an available repository with its incarnation, seq and pristine flag', () => {
    const status = desiredStatus(repo(), { kind: 'hold', repoId: 'id-1', seq: 0 }, t0);
    expect(status).toMatchObject({ repoId: 'id-1', headSeq: '0', pristine: true, observedGeneration: 2 });
    expect(ready(status)).toMatchObject({ status: 'True', reason: 'Available', observedGeneration: 2, lastTransitionTime: '2030-01-01T00:00:00Z' });
  });

  it('writes nothing again for an unchanged repository, and only seq and pristine after a push', () => {
    const first = desiredStatus(repo(), { kind: 'hold', repoId: 'id-1', seq: 0 }, t0);
    expect(statusChanged(first, desiredStatus(repo(first), { kind: 'hold', repoId: 'id-1', seq: 0 }, t1))).toBe(false);
    const pushed = desiredStatus(repo(first), { kind: 'hold', repoId: 'id-1', seq: 3 }, t1);
    expect(pushed).toMatchObject({ headSeq: '3', pristine: false });
    expect(ready(pushed)).toEqual(ready(first));
  });

  it('keeps the claim and the last known seq while the store is unreachable, with Ready Unknown', () => {
    const before = desiredStatus(repo(), { kind: 'hold', repoId: 'id-1', seq: 5 }, t0);
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
    [{ kind: 'store-unavailable', deleting: true }, 'False', 'StoreUnavailable', /Deleting the bucket data of acme\/app failed/],
    [{ kind: 'store-error', errorName: 'CorruptObjectError', deleting: false }, 'False', 'StoreError', /\(CorruptObjectError\)/],
    [{ kind: 'store-error', errorName: 'Error', deleting: true }, 'False', 'DeletionFailed', /Deleting the bucket data/],
  ])('%j → Ready %s, %s', (observation, status, reason, message) => {
    const condition = ready(desiredStatus(repo(), observation, t0));
    expect(condition).toMatchObject({ status, reason });
    expect(condition?.message).toMatch(message);
  });
});
