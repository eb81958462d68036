import { describe, expect, it } from 'vitest';
import type { RepoHead } from '../repo-store/index.ts';
import { unfinished } from './maintenance.ts';
import { UnitInterruptedError } from './operation.ts';
import { emptyStatus } from './status.ts';

/** What `unfinished` reads of a head for an fsck record. */
const head = { seq: 3, packs: [] } as unknown as RepoHead;
const now = new Date('2030-01-01T00:00:00.000Z');

describe('the status of an unfinished unit', () => {
  it('says why an interrupted unit was stopped: its deadline is not a shutdown (review-181 M2)', () => {
    const cut = unfinished('fsck', emptyStatus('id'), head, now, new UnitInterruptedError(), new Error('the unit ran past its deadline of 1800 s'));
    expect(cut.fsck).toMatchObject({ outcome: 'interrupted', problems: ['the unit ran past its deadline of 1800 s'] });
    const drained = unfinished('fsck', emptyStatus('id'), head, now, new UnitInterruptedError(), new Error('the instance is shutting down'));
    expect(drained.fsck?.problems).toEqual(['the instance is shutting down']);
  });
});
