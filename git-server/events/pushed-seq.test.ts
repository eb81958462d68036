import { describe, expect, it } from 'vitest';
import { PUSHED_SEQ_ANNOTATION, type Repository } from '../../src/apis/v1alpha1/repository.ts';
import { pushedSeqOf, pushedSeqPatch } from './pushed-seq.ts';

const resource = (mark?: string, resourceVersion = '42'): Repository => ({
  metadata: { name: 'site', namespace: 'acme', resourceVersion, ...(mark === undefined ? {} : { annotations: { [PUSHED_SEQ_ANNOTATION]: mark, other: 'kept' } }) },
  spec: { owner: 'acme', name: 'site' },
});
const raisedTo = (seq: string, resourceVersion = '42') => ({ metadata: { resourceVersion, annotations: { [PUSHED_SEQ_ANNOTATION]: seq } } });

describe('the push mark rule', () => {
  it('sets a mark that is absent, conditional on the resourceVersion it was decided on', () => {
    expect(pushedSeqPatch(resource(), 7)).toEqual(raisedTo('7'));
    expect(pushedSeqPatch(resource(undefined, '99'), 0)).toEqual(raisedTo('0', '99'));
  });

  it('raises a lower mark, and never lowers or rewrites one at or above the head', () => {
    expect(pushedSeqPatch(resource('6'), 7)).toEqual(raisedTo('7'));
    expect(pushedSeqPatch(resource('9'), 10)).toEqual(raisedTo('10')); // compared as numbers, not as text
    expect(pushedSeqPatch(resource('7'), 7)).toBeUndefined();
    expect(pushedSeqPatch(resource('10'), 9)).toBeUndefined();
    expect(pushedSeqPatch(resource('18446744073709551615'), Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it('replaces a value that is not a seq (it was never a mark)', () => {
    for (const junk of ['', 'seven', '-3', '007', '1e3', ' 5', '123456789012345678901']) {
      expect(pushedSeqOf(resource(junk)), junk).toBeUndefined();
      expect(pushedSeqPatch(resource(junk), 3), junk).toEqual(raisedTo('3'));
    }
  });

  it('refuses an unconditional patch: a resource read without a resourceVersion', () => {
    expect(() => pushedSeqPatch(resource('1', ''), 2)).toThrow(/resourceVersion/);
  });
});
