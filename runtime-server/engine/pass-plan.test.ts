import { describe, expect, it } from 'vitest';
import type { PreparedBuild } from './build-store.ts';
import { PassPlan } from './pass-plan.ts';
import type { Served } from './served.ts';

const served = (project: string, appId: string, buildId: string): Served => ({
  live: { app: { project, appId, buildId, env: {}, hostnames: [] }, build: { buildId } as PreparedBuild },
  id: `${project}/${appId}@${buildId}`,
  tailed: false,
});
const shardOf = (key: string) => (key.startsWith('a/') ? 0 : 1);

describe('PassPlan', () => {
  const before = new Map([
    ['a/web', served('a', 'web', 'b1')],
    ['b/web', served('b', 'web', 'b1')],
  ]);

  it('says which apps change id', () => {
    const plan = new PassPlan(before, ['a/web', 'b/web', 'b/new']);
    plan.next.set('a/web', served('a', 'web', 'b1'));
    plan.next.set('b/web', served('b', 'web', 'b2'));
    plan.next.set('b/new', served('b', 'new', 'b1'));
    expect(plan.changed().map(([key]) => key)).toEqual(['b/web', 'b/new']);
  });

  it('keeps what an app served when its change fails, or serves nothing new', () => {
    const plan = new PassPlan(before, ['a/web', 'b/new']);
    plan.next.set('a/web', served('a', 'web', 'b2'));
    plan.next.set('b/new', served('b', 'new', 'b1'));
    plan.keepPrevious('a/web', new Error('refused'));
    plan.keepPrevious('b/new', new Error('refused too'));
    expect(plan.next.get('a/web')?.live.build.buildId).toBe('b1');
    expect(plan.next.has('b/new')).toBe(false);
    expect([...plan.failures.keys()]).toEqual(['a/web', 'b/new']);
  });

  it('leaves a deferred change for a later pass: what the app served stays, and nothing fails', () => {
    const plan = new PassPlan(before, ['a/web', 'b/new']);
    plan.next.set('a/web', served('a', 'web', 'b2'));
    plan.next.set('b/new', served('b', 'new', 'b1'));
    plan.defer('a/web');
    plan.defer('b/new');
    expect(plan.next.get('a/web')?.live.build.buildId).toBe('b1');
    expect(plan.next.has('b/new')).toBe(false);
    expect(plan.changedReleases()).toEqual([]);
    expect([...plan.deferred]).toEqual(['a/web', 'b/new']);
    expect(plan.failures.size).toBe(0);
  });

  it("keeps a refusing shard's apps as they were, failing the changes asked of it with the shard's error unless they had failed", () => {
    const plan = new PassPlan(before, ['a/web', 'a/new', 'b/web', 'a/broken']);
    plan.next.set('a/web', served('a', 'web', 'b2'));
    plan.next.set('a/new', served('a', 'new', 'b1'));
    plan.next.set('b/web', served('b', 'web', 'b2'));
    plan.failures.set('a/broken', 'its own error');
    const shardError = new Error('shard 0 did not take its table');
    plan.keepRefusedShards(new Map([[0, shardError]]), shardOf);
    expect(plan.next.get('a/web')?.live.build.buildId).toBe('b1');
    expect(plan.next.has('a/new')).toBe(false);
    expect(plan.next.get('b/web')?.live.build.buildId).toBe('b2');
    expect(plan.failures).toEqual(
      new Map<string, unknown>([
        ['a/broken', 'its own error'],
        ['a/web', shardError],
        ['a/new', shardError],
      ]),
    );
  });

  it('fails every change asked when the pass fails as a whole, keeping earlier errors', () => {
    const plan = new PassPlan(before, ['a/web', 'b/web']);
    plan.failures.set('b/web', 'its own error');
    plan.failAll('pass failed');
    expect(plan.failures).toEqual(
      new Map([
        ['b/web', 'its own error'],
        ['a/web', 'pass failed'],
      ]),
    );
  });
});
