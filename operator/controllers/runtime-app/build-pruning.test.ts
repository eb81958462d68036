import { describe, expect, it } from 'vitest';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { UPLOADED_AT_ANNOTATION } from '../../../src/platform/app-view.ts';
import { buildsPastQuota, buildsToPrune, PRUNED_PER_PASS } from './build-pruning.ts';
import { keptBuilds } from '../../../src/platform/stored-builds-quota.ts';

/** Builds `b0`, `b1`, … uploaded a minute apart, `b0` first. */
function builds(n: number): Build[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: `app-b${i}`, annotations: { [UPLOADED_AT_ANNOTATION]: new Date(Date.UTC(2026, 0, 1, 12, i)).toISOString() } },
    spec: { app: 'app', buildId: `b${i}`, digest: '0'.repeat(64), size: 1, objectKey: `b${i}` },
  }));
}
const ids = (list: Build[]) => list.map((b) => b.spec.buildId);

describe('buildsToPrune', () => {
  it.each([
    { name: 'nothing while within the bound', count: 3, keep: 3, kept: [], pruned: [] },
    { name: 'the oldest past the newest kept, oldest first', count: 5, keep: 2, kept: [], pruned: ['b0', 'b1', 'b2'] },
    { name: 'never the active or a served build', count: 5, keep: 2, kept: ['b0', 'b2'], pruned: ['b1'] },
    { name: 'the kept ones do not push a recent build out', count: 3, keep: 2, kept: ['b0'], pruned: [] },
    { name: 'no build at all', count: 0, keep: 2, kept: [], pruned: [] },
  ])('$name', ({ count, keep, kept, pruned }) => {
    expect(ids(buildsToPrune(builds(count), keep, new Set(kept)))).toEqual(pruned);
  });

  it('takes at most a pass worth, the oldest, whatever order the cache lists them in', () => {
    const many = builds(PRUNED_PER_PASS + 20).toReversed();
    expect(ids(buildsToPrune(many, 5, new Set()))).toEqual(ids(builds(PRUNED_PER_PASS)));
  });

  it('counts a build uploaded again by its new time', () => {
    const [b0, b1, b2] = builds(3);
    const again = { ...b0!, metadata: { ...b0!.metadata, annotations: { [UPLOADED_AT_ANNOTATION]: '2026-01-01T13:00:00.000Z' } } };
    expect(ids(buildsToPrune([again, b1!, b2!], 2, new Set()))).toEqual(['b1']);
  });
});

describe('buildsPastQuota', () => {
  /** Builds of 10 bytes each, of apps `a` and `b` in turn, `b0` (app `a`) uploaded first. */
  const project = (n: number) => builds(n).map((b, i) => ({ ...b, spec: { ...b.spec, app: i % 2 === 0 ? 'a' : 'b', size: 10 } }));
  const none = () => false;

  it.each([
    { name: 'nothing while the project fits', count: 5, quota: 50, kept: [], pruned: [] },
    { name: 'the oldest of any app until what is left fits', count: 5, quota: 30, kept: [], pruned: ['b0', 'b1'] },
    { name: 'never one an app keeps: the next oldest instead', count: 5, quota: 30, kept: ['b0'], pruned: ['b1', 'b2'] },
    { name: 'everything it may when the kept ones alone pass the quota', count: 4, quota: 15, kept: ['b0', 'b2'], pruned: ['b1', 'b3'] },
  ])('$name', ({ count, quota, kept, pruned }) => {
    expect(ids(buildsPastQuota(project(count), quota, (b) => kept.includes(b.spec.buildId)))).toEqual(pruned);
  });

  it('takes at most a pass worth, the oldest, whatever order the cache lists them in', () => {
    const many = project(PRUNED_PER_PASS + 20).toReversed();
    expect(ids(buildsPastQuota(many, 0, none))).toEqual(ids(builds(PRUNED_PER_PASS)));
  });
});

describe('keptBuilds', () => {
  it('keeps the active build, those served, and both builds of a rollout', () => {
    const app = {
      metadata: { name: 'app' },
      spec: { displayName: 'app', activeBuildId: 'b3' },
      status: { rollout: { phase: 'Aborted' as const, stable: { release: 'r1', buildId: 'b1' }, canary: { release: 'r2', buildId: 'b2' }, step: 0, weight: 0 } },
    };
    expect([...keptBuilds(app, [{ servingBuildId: 'b0' }, undefined, {}])].sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
    expect(ids(buildsToPrune(builds(6), 1, keptBuilds(app, [])))).toEqual(['b0', 'b4']);
  });

  it('keeps what the status says is served while no replica has said so for the new spec', () => {
    const app = { metadata: { name: 'app' }, spec: { displayName: 'app', activeBuildId: 'b5' }, status: { servingBuildId: 'b1', served: { release: 'r2', buildId: 'b2' } } };
    expect([...keptBuilds(app, [undefined])].sort()).toEqual(['b1', 'b2', 'b5']);
  });
});
