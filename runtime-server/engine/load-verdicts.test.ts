import { describe, expect, it } from 'vitest';
import { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import { LoadVerdicts } from './load-verdicts.ts';

describe('LoadVerdicts', () => {
  it('remembers a build workerd refused, with its message and without the loader prefix', () => {
    const v = new LoadVerdicts();
    const error = v.record('f1', 'b-1', 'p/a', { loaded: false, error: 'Error: Failed to start Worker: Uncaught SyntaxError: x', hung: false });
    expect(error).toBeInstanceOf(BuildLoadError);
    expect((error as BuildLoadError).detail).toBe('Uncaught SyntaxError: x');
    expect(v.refusal('f1')).toBe(error);
    expect(v.attempts('f1')).toBe(0);
  });

  it('counts other failures as attempts to retry under a new id, and does not remember them as refusals', () => {
    const v = new LoadVerdicts();
    const error = v.record('f2', 'b-2', 'p/a', { loaded: false, error: 'the dispatcher answered 500', hung: false });
    expect(error).not.toBeInstanceOf(BuildLoadError);
    expect(error?.message).toBe('loading p/a failed: the dispatcher answered 500');
    expect(v.refusal('f2')).toBeUndefined();
    expect(v.attempts('f2')).toBe(1);
  });

  it('remembers builds that loaded', () => {
    const v = new LoadVerdicts();
    expect(v.record('f3', 'b-3', 'p/a', { loaded: true, hung: false })).toBeUndefined();
    expect(v.loaded('f3')).toBe(true);
    expect(v.loaded('f4')).toBe(false);
  });
});
