import { describe, expect, it } from 'vitest';
import type { SourceBuild, SourceBuildState } from '../../../src/apis/v1alpha1/source-build.ts';
import { FULL_LOGS_PER_APP } from '../../../src/platform/source-builds/log-retention.ts';
import { buildsWithTrimmedLogs } from './trimmed-logs.ts';

const at = (minute: number) => `2026-01-01T10:${String(minute).padStart(2, '0')}:00Z`;

/**
 * Build `name` of `app`, pushed `minute` minutes into the hour; a finished one ended `ran` minutes later (it ran),
 * or never started (`ran: null`, cancelled in the queue).
 */
function build(name: string, minute: number, state: SourceBuildState | undefined, app = 'web', extra: { deleting?: boolean; ran?: number | null } = {}): SourceBuild {
  const ran = extra.ran === undefined ? 1 : extra.ran;
  const finished = state === 'Succeeded' || state === 'Failed' || state === 'Cancelled';
  return {
    metadata: { name, namespace: 'p', creationTimestamp: at(minute), ...(extra.deleting ? { deletionTimestamp: '2026-01-01T11:00:00Z' } : {}) },
    spec: { app, source: 'web', context: 'production', repository: 'acme/web', branch: 'main', commit: 'c'.repeat(40) },
    ...(state ? { status: { state, ...(ran === null ? {} : { startedAt: at(minute), ...(finished ? { finishedAt: at(minute + ran) } : {}) }) } } : {}),
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

  // review-171 F5: superseded pushes pushed the serving build's log out, and a build queued long was cut as it ended.
  it('counts only builds that ran, newest by end: a build that just ended keeps its log however long it queued', () => {
    const builds = [
      build('live', 0, 'Succeeded'),
      ...Array.from({ length: FULL_LOGS_PER_APP }, (_, i) => build(`superseded${i}`, 1 + i, 'Cancelled', 'web', { ran: null })),
      build('slow', 2, 'Succeeded', 'web', { ran: 30 }),
      ...Array.from({ length: FULL_LOGS_PER_APP }, (_, i) => build(`fast${i}`, 3 + i, 'Failed')),
    ];
    // The superseded pushes take no place: the build that serves keeps its log.
    expect(names(buildsWithTrimmedLogs(builds.slice(0, 1 + FULL_LOGS_PER_APP), 'web'))).toEqual([]);
    // `slow`, pushed before the five fast ones and ended after them, is among the newest five; `fast0` is not.
    expect(names(buildsWithTrimmedLogs(builds, 'web'))).toEqual(['fast0', 'live']);
  });

  it('keeps the newest build that succeeded whole past any number of pushes cancelled while they ran (review-174 R4)', () => {
    const builds = [build('live', 0, 'Succeeded'), ...Array.from({ length: FULL_LOGS_PER_APP + 2 }, (_, i) => build(`cancelled${i}`, 1 + i, 'Cancelled'))];
    expect(names(buildsWithTrimmedLogs(builds, 'web'))).toEqual(['cancelled1', 'cancelled0']);
  });

  it('orders builds pushed in the same second by name, whatever the informer’s order', () => {
    const same = Array.from({ length: FULL_LOGS_PER_APP + 1 }, (_, i) => build(`s${i}`, 0, 'Succeeded'));
    expect(names(buildsWithTrimmedLogs(same, 'web'))).toEqual(['s0']);
    expect(names(buildsWithTrimmedLogs(same.toReversed(), 'web'))).toEqual(['s0']);
  });
});
