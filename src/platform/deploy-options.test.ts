import { describe, expect, it } from 'vitest';
import { deployOptionsView, recordedOptions, sameOptions, withOptions } from './deploy-options.ts';

describe('deploy options', () => {
  it('records a deploy’s options, leaving out what it left at the default', () => {
    expect(recordedOptions(['www.example.com'], 7)).toStrictEqual({ hostnames: ['www.example.com'], maxConcurrentRequests: 7 });
    expect(recordedOptions([], undefined)).toStrictEqual({});
  });

  it('replaces both options of an app, removing the ones a deploy left out, and nothing else', () => {
    const spec = { displayName: 'web', activeBuildId: 'b-1', environment: { K: 'v' }, hostnames: ['old.example.com'], maxConcurrentRequests: 5 };
    expect(withOptions(spec, {})).toStrictEqual({ displayName: 'web', activeBuildId: 'b-1', environment: { K: 'v' } });
    expect(withOptions(spec, { hostnames: ['new.example.com'] })).toStrictEqual({ displayName: 'web', activeBuildId: 'b-1', environment: { K: 'v' }, hostnames: ['new.example.com'] });
    expect(withOptions({ displayName: 'web' }, { hostnames: [], maxConcurrentRequests: 9 })).toStrictEqual({ displayName: 'web', maxConcurrentRequests: 9 });
  });

  it.each([
    [{}, {}, true],
    [{ hostnames: [] }, {}, true],
    [{ hostnames: ['a.example'], maxConcurrentRequests: 2 }, { hostnames: ['a.example'], maxConcurrentRequests: 2 }, true],
    [{ hostnames: ['a.example', 'b.example'] }, { hostnames: ['b.example', 'a.example'] }, false],
    [{ maxConcurrentRequests: 2 }, {}, false],
    [undefined, {}, false],
    [undefined, undefined, true],
  ])('compares %j with %j: %s', (a, b, same) => {
    expect(sameOptions(a, b)).toBe(same);
    expect(sameOptions(b, a)).toBe(same);
  });

  it('shows recorded options with every host name list present, the default bound absent', () => {
    expect(deployOptionsView({})).toStrictEqual({ hostnames: [] });
    expect(deployOptionsView({ hostnames: ['a.example'], maxConcurrentRequests: 3 })).toStrictEqual({ hostnames: ['a.example'], max_concurrent_requests: 3 });
  });
});
