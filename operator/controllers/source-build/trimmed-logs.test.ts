import { describe, expect, it } from 'vitest';
import type { SourceBuild, SourceBuildState } from '../../../src/apis/v1alpha1/source-build.ts';
import { FULL_LOGS_PER_APP } from '../../../src/platform/source-builds/log-retention.ts';
import { buildsWithTrimmedLogs } from './trimmed-logs.ts';

/** Build `name` of `app`, pushed `minute` minutes into the hour. */
function build(name: string, minute: number, state: SourceBuildState | undefined, app = 'web', extra: { deleting?: boolean } = {}): SourceBuild {
  return {
    metadata: {
      name,
      namespace: 'p',
      creationTimestamp: `2026-01-01T10:${String(minute).padStart(2, '0')}:00Z`,
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T11:00:00Z' } : {}),
    },
    spec: { app, source: 'web', context: 'production', repository: 'acme/web', branch: 'main', commit: 'c'.repeat(40) },
    ...(state ? { status: { state } } : {}),
  };
}

const names = (builds: SourceBuild[]) => builds.map((b) => b.metadata?.name);

describe('buildsWithTrimmedLogs', () => {
  it('is the finished builds of the app past its newest five, by push', () => {
    const finished = Array.from({ length: FULL_LOGS_PER_APP + 2 }, (_, i) => build(`f${i}`, i, i % 2 ? 'Failed' : 'Succeeded'));
    expect(names(buildsWithTrimmedLogs(finished.toReversed(), 'web'))).toEqual(['f1', 'f0']);
  });

  it('counts neither running nor queued builds, another app’s, nor builds being deleted', () => {
    const builds = [
      ...Array.from({ length: FULL_LOGS_PER_APP }, (_, i) => build(`f${i}`, i, 'Succeeded')),
      build('running', 20, 'Building'),
      build('queued', 21, undefined),
      build('preview', 22, 'Succeeded', 'web--feature'),
      build('going', 23, 'Cancelled', 'web', { deleting: true }),
    ];
    expect(buildsWithTrimmedLogs(builds, 'web')).toEqual([]);
    expect(names(buildsWithTrimmedLogs([...builds, build('newest', 30, 'Failed')], 'web'))).toEqual(['f0']);
  });

  it('orders builds pushed in the same second by name, whatever the informer’s order', () => {
    const same = Array.from({ length: FULL_LOGS_PER_APP + 1 }, (_, i) => build(`s${i}`, 0, 'Succeeded'));
    expect(names(buildsWithTrimmedLogs(same, 'web'))).toEqual(['s0']);
    expect(names(buildsWithTrimmedLogs(same.toReversed(), 'web'))).toEqual(['s0']);
  });
});
