import { describe, expect, it } from 'vitest';
import { cleanupAction, decide, type BucketState } from './plan.ts';

const missing: BucketState = { kind: 'missing' };
const pristine = (repoId: string): BucketState => ({ kind: 'present', repoId, seq: 0 });
const written = (repoId: string): BucketState => ({ kind: 'present', repoId, seq: 7 });

describe('decide', () => {
  it.each<[string, string | undefined, string | undefined, BucketState, ReturnType<typeof decide>]>([
    ['creates when nothing is there or claimed', undefined, undefined, missing, { kind: 'create' }],
    ['holds its own incarnation', 'id-1', undefined, written('id-1'), { kind: 'hold', repoId: 'id-1', seq: 7 }],
    ['adopts a pristine repository nobody claimed (its own create before a crash)', undefined, undefined, pristine('id-2'), { kind: 'hold', repoId: 'id-2', seq: 0 }],
    ['leaves written data it did not create alone', undefined, undefined, written('id-3'), { kind: 'exists', repoId: 'id-3' }],
    ['adopts written data when the annotation names that incarnation', undefined, 'id-3', written('id-3'), { kind: 'hold', repoId: 'id-3', seq: 7 }],
    ['does not adopt when the annotation names another incarnation', undefined, 'id-9', written('id-3'), { kind: 'exists', repoId: 'id-3' }],
    ['reports its incarnation lost when the bucket no longer has it, instead of recreating it', 'id-1', undefined, missing, { kind: 'lost', claim: 'id-1' }],
    ['reports its incarnation lost when another replaced it, even a pristine one', 'id-1', undefined, pristine('id-4'), { kind: 'lost', claim: 'id-1', found: 'id-4' }],
    ['ignores the annotation once it has claimed', 'id-1', 'id-4', written('id-4'), { kind: 'lost', claim: 'id-1', found: 'id-4' }],
  ])('%s', (_name, claim, adopt, bucket, expected) => {
    expect(decide(claim, adopt, bucket)).toEqual(expected);
  });
});

describe('cleanupAction', () => {
  it.each<[string, string | undefined, BucketState, 'delete' | 'release']>([
    ['deletes its own incarnation', 'id-1', written('id-1'), 'delete'],
    ['sweeps what an interrupted delete left (no manifest)', 'id-1', missing, 'delete'],
    ['never deletes another incarnation', 'id-1', written('id-2'), 'release'],
    ['never deletes anything when it claimed nothing', undefined, pristine('id-2'), 'release'],
    ['has nothing to do when it claimed nothing and nothing is there', undefined, missing, 'release'],
  ])('%s', (_name, claim, bucket, expected) => {
    expect(cleanupAction(claim, bucket)).toBe(expected);
  });
});
