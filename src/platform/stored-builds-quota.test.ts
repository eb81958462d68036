import { describe, expect, it } from 'vitest';
import type { Build } from '../apis/v1alpha1/build.ts';
import { RUNTIME_APP_FINALIZER, type RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { checkStoredBuildsQuota, keptStoredBytes, storedBuilds, StoredBuildsQuotaError } from './stored-builds-quota.ts';

const build = (app: string, buildId: string, size: number): Build => ({ metadata: { name: `${app}-${buildId}` }, spec: { app, buildId, digest: '0'.repeat(64), size, objectKey: buildId } });
const app = (name: string, activeBuildId: string, canary?: string): RuntimeApp => ({
  metadata: { name },
  spec: { displayName: name, activeBuildId },
  ...(canary ? { status: { rollout: { phase: 'Progressing' as const, stable: { release: 'r1', buildId: activeBuildId }, canary: { release: 'r2', buildId: canary }, step: 0, weight: 0 } } } : {}),
});

describe('keptStoredBytes', () => {
  it('counts the builds each app keeps (active, in a rollout), not the others, nor another app’s build of the same id', () => {
    const builds = [build('a', 'b1', 100), build('a', 'b2', 10), build('a', 'b3', 1), build('b', 'b1', 1000), build('c', 'b9', 5)];
    expect(keptStoredBytes([app('a', 'b1', 'b3'), app('b', 'b7')], builds)).toBe(101);
  });
});

describe('storedBuilds', () => {
  it('leaves out the builds of an app deleted and torn down (held by another finalizer), not those of one still tearing down, of a live app or of none', () => {
    const deleting = (name: string, finalizers: string[]): RuntimeApp => ({ ...app(name, 'b1'), metadata: { name, deletionTimestamp: '2026-12-06T12:00:00Z', finalizers } });
    const apps = new Map([
      ['live', app('live', 'b1')],
      ['tearing', deleting('tearing', [RUNTIME_APP_FINALIZER, 'example.com/hold'])],
      ['torn', deleting('torn', ['example.com/hold'])],
    ]);
    const builds = ['live', 'tearing', 'torn', 'none'].map((name) => build(name, 'b1', 1));
    expect(storedBuilds(builds, (name) => apps.get(name)).map((b) => b.spec.app)).toEqual(['live', 'tearing', 'none']);
  });
});

describe('checkStoredBuildsQuota', () => {
  it('lets a build in while it fits beside the kept ones, refuses with 409 past that and 413 for a build larger than the quota', () => {
    expect(() => checkStoredBuildsQuota('p', 100, 60, 40)).not.toThrow();
    const past = (() => {
      try {
        checkStoredBuildsQuota('p', 100, 61, 40);
      } catch (err) {
        return err;
      }
    })();
    expect(past).toBeInstanceOf(StoredBuildsQuotaError);
    expect(past).toMatchObject({ status: 409, message: expect.stringContaining('take 61 bytes of stored builds and this build 40') });
    expect(() => checkStoredBuildsQuota('p', 100, 0, 101)).toThrow(expect.objectContaining({ status: 413 }));
  });
});
