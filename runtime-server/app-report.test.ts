import { describe, expect, it } from 'vitest';
import type { ServedApp } from './engine/index.ts';
import { reportFor } from './app-report.ts';

const served: ServedApp = {
  project: 'p',
  appId: 'a',
  buildId: 'b-1',
  hosts: ['a.p.apps.localhost', 'www.example.com'],
  url: 'https://a.p.apps.localhost',
  maxConcurrentRequests: 100,
};

describe('reportFor', () => {
  it('is 404 for an app the replica neither serves nor has acted on', () => {
    expect(reportFor('p', 'a', undefined, undefined)).toBeUndefined();
  });

  it('reports what is served and for which generation', () => {
    expect(reportFor('p', 'a', { generation: 2, buildId: 'b-1', servedGeneration: 2 }, served)).toEqual({
      namespace: 'p',
      app: 'a',
      servingBuildId: 'b-1',
      url: 'https://a.p.apps.localhost',
      hosts: ['a.p.apps.localhost', 'www.example.com'],
      servedGeneration: 2,
      observedGeneration: 2,
    });
  });

  it('reports a build its first request found unservable as failed and not served, whatever the deploy recorded', () => {
    const failure = { reason: 'BuildFailed' as const, buildId: 'b-2', message: 'SyntaxError' };
    const onDemand = { ...served, buildId: 'b-2', onDemand: true as const };
    const report = reportFor('p', 'a', { generation: 3, buildId: 'b-2', servedGeneration: 3 }, onDemand, undefined, undefined, failure);
    expect(report).toEqual({ namespace: 'p', app: 'a', hosts: [], observedGeneration: 3, failure });
    // An older build still served beside it stays reported as served.
    expect(reportFor('p', 'a', { generation: 3, buildId: 'b-2', servedGeneration: 3 }, served, undefined, undefined, failure)).toMatchObject({ servingBuildId: 'b-1', failure });
  });

  it('reports a build not tried here, given a fallback, as rolling out beside the fallback rather than served', () => {
    const untried = { ...served, buildId: 'b-2', onDemand: true as const, untried: { fallbackBuildId: 'b-1' } };
    const report = reportFor('p', 'a', { generation: 3, buildId: 'b-2', servedGeneration: 3 }, untried);
    expect(report).toMatchObject({ servingBuildId: 'b-1', observedGeneration: 3 });
    expect(report).not.toHaveProperty('servedGeneration');
    // Nor a split it does not serve yet (found in review).
    const split = { ...untried, canary: { buildId: 'b-3', weight: 30 } };
    const splitReport = reportFor('p', 'a', { generation: 4, buildId: 'b-2', servedGeneration: 4, rollout: { release: 'digest-3', weight: 30 } }, split);
    expect(splitReport).toMatchObject({ servingBuildId: 'b-1' });
    expect(splitReport).not.toHaveProperty('rollout');
    // Untried with no fallback (refused by another replica before): no serving build at all.
    const refusedElsewhere = reportFor('p', 'a', { generation: 3, buildId: 'b-2', servedGeneration: 3 }, { ...untried, untried: {} });
    expect(refusedElsewhere).not.toHaveProperty('servingBuildId');
    expect(refusedElsewhere).not.toHaveProperty('servedGeneration');
  });

  it('reports a refused build beside the build still served', () => {
    const failure = { reason: 'BuildFailed' as const, buildId: 'b-2', message: 'SyntaxError' };
    expect(reportFor('p', 'a', { generation: 3, buildId: 'b-2', servedGeneration: 2, failure }, served)).toMatchObject({
      servingBuildId: 'b-1',
      servedGeneration: 2,
      observedGeneration: 3,
      failure,
    });
  });

  it('reports a first deploy in progress: nothing served yet', () => {
    expect(reportFor('p', 'a', { generation: 1, buildId: 'b-1' }, undefined)).toEqual({ namespace: 'p', app: 'a', hosts: [], observedGeneration: 1 });
  });

  it('reports a quarantine beside what is served, and none for an app it does not serve', () => {
    const quarantine = { reason: 'CPULimitExceeded' as const, until: '2026-12-01T10:00:00.000Z', message: 'The app was stopped.' };
    expect(reportFor('p', 'a', { generation: 2, buildId: 'b-1', servedGeneration: 2 }, served, quarantine)).toMatchObject({ servingBuildId: 'b-1', quarantine });
    expect(reportFor('p', 'a', { generation: 1, buildId: 'b-1' }, undefined, quarantine)).not.toHaveProperty('quarantine');
  });

  it('reports a split: the new release’s build, its digest, the weight and the counts per release', () => {
    const split = { ...served, canary: { buildId: 'b-2', weight: 30 } };
    const record = { generation: 4, buildId: 'b-1', servedGeneration: 4, plan: 'split …', rollout: { release: 'digest-2', weight: 30 } };
    const counts = { stable: { requests: 70, errors: 1 }, canary: { requests: 30, errors: 3 } };
    expect(reportFor('p', 'a', record, split, undefined, counts)).toEqual({
      namespace: 'p',
      app: 'a',
      servingBuildId: 'b-2',
      url: 'https://a.p.apps.localhost',
      hosts: ['a.p.apps.localhost', 'www.example.com'],
      servedGeneration: 4,
      observedGeneration: 4,
      rollout: { release: 'digest-2', weight: 30, ...counts },
    });
    // Counts of a run of the split (the engine's tag ends in it): the run is named, for the operator's baselines.
    expect(reportFor('p', 'a', record, split, undefined, { ...counts, tag: 'f1:f2#9c3e0a1b.4' })?.rollout).toEqual({ release: 'digest-2', weight: 30, run: '9c3e0a1b.4', ...counts });
    // Before the first read of the counts: zero.
    expect(reportFor('p', 'a', record, split)?.rollout).toEqual({ release: 'digest-2', weight: 30, stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } });
    // A single release served (the engine has no canary): no rollout, the stable build.
    expect(reportFor('p', 'a', { generation: 4, buildId: 'b-1', servedGeneration: 4 }, served, undefined, counts)).toMatchObject({ servingBuildId: 'b-1' });
    expect(reportFor('p', 'a', { generation: 4, buildId: 'b-1', servedGeneration: 4 }, served, undefined, counts)).not.toHaveProperty('rollout');
  });

  it('reports a suspended new release at weight 0, with its counts', () => {
    const suspended = { ...served, canary: { buildId: 'b-2', weight: 0, suspended: true as const } };
    const record = { generation: 4, buildId: 'b-1', servedGeneration: 4, rollout: { release: 'digest-2', weight: 30 } };
    const counts = { stable: { requests: 70, errors: 0 }, canary: { requests: 5, errors: 1 } };
    expect(reportFor('p', 'a', record, suspended, undefined, counts)).toMatchObject({ servingBuildId: 'b-2', rollout: { release: 'digest-2', weight: 0, suspended: true, ...counts } });
  });
});
