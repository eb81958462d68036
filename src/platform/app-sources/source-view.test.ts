import { describe, expect, it } from 'vitest';
import type { AppSource } from '../../apis/v1alpha1/app-source.ts';
import type { SourceBuild } from '../../apis/v1alpha1/source-build.ts';
import { isFinished, sourceBuildView, sourceView } from './source-view.ts';

const at = '2030-01-01T00:00:00Z';
const source = (status?: AppSource['status'], generation = 2): AppSource => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'AppSource',
  metadata: { name: 'web', namespace: 'p', generation, creationTimestamp: at },
  spec: { app: 'web', repository: { owner: 'shop', name: 'site' } },
  ...(status ? { status } : {}),
});
const condition = (type: string, status: 'True' | 'False', reason: string, observedGeneration = 2) => ({ type, status, reason, message: `${reason}.`, lastTransitionTime: at, observedGeneration });

describe('sourceView', () => {
  it('fills in the defaults: main, every branch, empty environments, no preview databases, pending', () => {
    expect(sourceView(source())).toStrictEqual({
      app_id: 'web',
      repository: 'shop/site',
      production_branch: 'main',
      preview_branches: ['*'],
      environment: { production: {}, preview: {} },
      preview_databases: 'none',
      state: 'pending',
      previews: [],
      created_at: at,
    });
  });

  it.each([
    [[condition('RepositoryReady', 'True', 'Found'), condition('Ready', 'True', 'Deployed')], 'ready', 'Deployed'],
    [[condition('RepositoryReady', 'True', 'Found'), condition('Ready', 'False', 'Building')], 'pending', 'Building'],
    [[condition('RepositoryReady', 'True', 'Found'), condition('Ready', 'False', 'BranchNotFound')], 'pending', 'BranchNotFound'],
    [[condition('RepositoryReady', 'True', 'Found'), condition('Ready', 'False', 'BuildFailed')], 'failed', 'BuildFailed'],
    // The repository's failure is the one that says why, whatever Ready says.
    [[condition('RepositoryReady', 'False', 'RepositoryNotFound'), condition('Ready', 'False', 'Building')], 'failed', 'RepositoryNotFound'],
  ] as const)('sums conditions up: %# → %s', (conditions, state, reason) => {
    expect(sourceView(source({ observedGeneration: 2, conditions: [...conditions] }))).toMatchObject({ state, reason, message: `${reason}.` });
  });

  it('says pending, without a reason, for conditions of an earlier generation', () => {
    const view = sourceView(source({ observedGeneration: 2, conditions: [condition('RepositoryReady', 'True', 'Found'), condition('Ready', 'True', 'Deployed', 1)] }));
    expect(view.state).toBe('pending');
    expect(view).not.toHaveProperty('reason');
  });
});

describe('sourceBuildView', () => {
  const build = (status?: SourceBuild['status'], cancelled?: boolean): SourceBuild => ({
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'SourceBuild',
    metadata: { name: 'web-aaaaaaaaaaaa', namespace: 'p', creationTimestamp: at },
    spec: { app: 'web', source: 'web', context: 'production', repository: 'shop/site', branch: 'main', commit: 'a'.repeat(40), ...(cancelled ? { cancelled } : {}) },
    ...(status ? { status } : {}),
  });

  it('is queued until the operator says otherwise, and says a cancel was asked for', () => {
    expect(sourceBuildView(build(undefined, true))).toStrictEqual({
      source_build_id: 'web-aaaaaaaaaaaa',
      app_id: 'web',
      context: 'production',
      repository: 'shop/site',
      branch: 'main',
      commit: 'a'.repeat(40),
      state: 'queued',
      cancel_requested: true,
      created_at: at,
    });
  });

  it('shows the state in lowercase with why and what it became', () => {
    const view = sourceBuildView(
      build({ state: 'Succeeded', reason: 'Built', message: 'Built in 3 s.', buildId: 'b-0123456789abcdef', startedAt: at, finishedAt: at, author: 'Ada', commitMessage: 'Fix' }),
    );
    expect(view).toMatchObject({ state: 'succeeded', build_id: 'b-0123456789abcdef', author: 'Ada', commit_message: 'Fix', started_at: at, finished_at: at, cancel_requested: false });
  });

  it('knows which states are final', () => {
    expect([undefined, 'Queued', 'Building', 'Succeeded', 'Failed', 'Cancelled'].map((s) => isFinished(s as never))).toEqual([false, false, false, true, true, true]);
  });
});
