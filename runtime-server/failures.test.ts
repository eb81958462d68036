import { describe, expect, it } from 'vitest';
import { ArtifactError, ArtifactTooLargeError, BuildLoadError, BuildQuotaError, InsufficientStorageError } from './engine/index.ts';
import { classifyDeployError, failedBuildOf } from './failures.ts';
import { ArtifactNotFoundError } from './s3-artifact-source.ts';

describe('classifyDeployError', () => {
  it.each([
    ['workerd refuses the build', new BuildLoadError('b-1', 'Uncaught SyntaxError: Unexpected token'), 'BuildFailed', true, 'Uncaught SyntaxError: Unexpected token'],
    ['an invalid artifact', new ArtifactError('no entry point'), 'BuildFailed', true, 'no entry point'],
    ['an artifact over a limit', new ArtifactTooLargeError('files', 10, 'too many files'), 'BuildFailed', true, 'too many files'],
    ['no artifact', new ArtifactNotFoundError('apps/p/a/builds/b-1.tar.zst'), 'BuildNotFound', false, 'The artifact of build b-1 is not in the object store (apps/p/a/builds/b-1.tar.zst).'],
    ['no room in the data directory', new InsufficientStorageError('b-1', 100, 'no room'), 'InsufficientStorage', false, 'no room'],
    ['past the project quota', new BuildQuotaError('b-1', 100, 'over quota'), 'QuotaExceeded', false, 'over quota'],
    ['anything else', new Error('connect ECONNREFUSED'), 'Retrying', false, 'connect ECONNREFUSED'],
  ])('%s → %s', (_name, err, reason, terminal, message) => {
    expect(classifyDeployError(err, 'b-1')).toEqual({ failure: { reason, buildId: 'b-1', message }, terminal });
  });
});

describe('failedBuildOf', () => {
  const split = { buildId: 'b-1', canary: { buildId: 'b-2', env: {}, weight: 10, affinity: { cookie: 'cw-rollout' } } };
  it('names the build the error names, else the new release of a split, else the deployment’s', () => {
    expect(failedBuildOf(new BuildLoadError('b-1', 'x'), split)).toBe('b-1');
    expect(failedBuildOf(new ArtifactNotFoundError('apps/p/a/builds/b-2.tar.zst'), split)).toBe('b-2');
    expect(failedBuildOf(new ArtifactNotFoundError('apps/p/a/builds/b-1.tar.zst'), split)).toBe('b-1');
    expect(failedBuildOf(new ArtifactError('no entry point'), split)).toBe('b-2');
    expect(failedBuildOf(new ArtifactError('no entry point'), { buildId: 'b-1' })).toBe('b-1');
  });
});
