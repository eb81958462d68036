import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { ConflictError } from '../errors.ts';
import { deployOptionsView, keepingApplied, recordedOptions, refuseAskedApplied, sameOptions, withOptions } from './deploy-options.ts';

/** An app whose host names and concurrency bound Flux applies. */
const fromGit: RuntimeApp = {
  metadata: {
    name: 'web',
    managedFields: [{ manager: 'kustomize-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:hostnames': {}, 'f:maxConcurrentRequests': {} } } }],
  } as RuntimeApp['metadata'],
  spec: { displayName: 'web', hostnames: ['Git.Example.com'], maxConcurrentRequests: 7 },
};

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

  it('keeps the options a GitOps tool applies exactly as the app has them, and refuses a deploy asking for others', () => {
    expect(keepingApplied(fromGit, withOptions(fromGit.spec, {}))).toStrictEqual(fromGit.spec);
    expect(keepingApplied(fromGit, withOptions(fromGit.spec, { hostnames: ['other.example.com'], maxConcurrentRequests: 9 }))).toStrictEqual(fromGit.spec);
    expect(() => refuseAskedApplied(fromGit, {})).not.toThrow();
    expect(() => refuseAskedApplied(fromGit, { hostnames: ['Git.Example.com'], maxConcurrentRequests: 7 })).not.toThrow();
    expect(() => refuseAskedApplied(fromGit, { maxConcurrentRequests: 9 })).toThrow(ConflictError);
    expect(() => refuseAskedApplied(fromGit, { hostnames: [] })).toThrow(/spec\.hostnames is applied by kustomize-controller/);
    // The same names in another order are not another value.
    const two = { ...fromGit, spec: { ...fromGit.spec, hostnames: ['a.example.com', 'b.example.com'] } };
    expect(() => refuseAskedApplied(two, { hostnames: ['b.example.com', 'a.example.com'] })).not.toThrow();
    const byApi = { ...fromGit, metadata: { name: 'web' } };
    expect(keepingApplied(byApi, withOptions(byApi.spec, {}))).toStrictEqual({ displayName: 'web' });
    expect(() => refuseAskedApplied(byApi, { maxConcurrentRequests: 9 })).not.toThrow();
  });
});
