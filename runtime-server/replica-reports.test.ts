import { describe, expect, it } from 'vitest';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { projectReports, replicaSpec, reportChanges, reportFingerprint } from './replica-reports.ts';

const report = (app: string, hosts = [`${app}.p.apps.localhost`], namespace = 'p'): RuntimeAppReport => ({
  namespace,
  app,
  servingBuildId: 'b-0123456789abcdef',
  hosts,
  url: `https://${hosts[0]}`,
  servedGeneration: 1,
  observedGeneration: 1,
});

describe('replicaSpec', () => {
  it('carries the readiness, whether the reports count and the status address, and no report', () => {
    expect(replicaSpec({ ready: false, takesTraffic: true, statusURL: 'http://10.0.0.1:9090', apps: [report('a')] })).toEqual({
      ready: false,
      takesTraffic: true,
      statusURL: 'http://10.0.0.1:9090',
    });
  });
});

describe('projectReports', () => {
  it('splits the reports by project, each naming the replica and its project, in key order', () => {
    const specs = projectReports('r1', [report('a', undefined, 'p'), report('b', undefined, 'p'), report('a', undefined, 'q')]);
    expect([...specs.keys()]).toEqual(['p', 'q']);
    expect(specs.get('p')).toEqual({ replica: 'r1', project: 'p', apps: [report('a'), report('b')] });
    expect(specs.get('q')).toEqual({ replica: 'r1', project: 'q', apps: [report('a', undefined, 'q')] });
  });

  it('gives each project with apps its mark and how implied reports name hosts, an object even with no report listed', () => {
    const defaultHost = { domain: 'apps.localhost', scheme: 'https' as const };
    const specs = projectReports('r1', [report('a')], undefined, undefined, {
      acted: new Map([
        ['p', '41'],
        ['q', '40'],
        ['r', undefined],
      ]),
      defaultHost,
    });
    expect(specs.get('p')).toEqual({ replica: 'r1', project: 'p', apps: [report('a')], acted: '41', defaultHost });
    expect(specs.get('q')).toEqual({ replica: 'r1', project: 'q', apps: [], acted: '40', defaultHost });
    // No mark yet: its reports list every app acted on, as before marks.
    expect(specs.get('r')).toEqual({ replica: 'r1', project: 'r', apps: [] });
  });

  it('drops the mark of a project whose reports were cut by the bounds: an app left out would read as implied', () => {
    const spec = projectReports('r1', [report('a'), report('b')], 1, undefined, { acted: new Map([['p', '41']]), defaultHost: { domain: 'apps.localhost', scheme: 'https' } }).get('p');
    expect(spec?.omittedApps).toBe(1);
    expect(spec?.acted).toBeUndefined();
  });

  it('keeps a project’s reports in order up to the count bound and counts the rest', () => {
    const spec = projectReports('r1', [report('a'), report('b'), report('c')], 2).get('p');
    expect(spec?.apps.map((a) => a.app)).toEqual(['a', 'b']);
    expect(spec?.omittedApps).toBe(1);
  });

  it('stops at the byte budget, whatever the count (apps with many long host names)', () => {
    const long = Array.from({ length: 60 }, (_, i) => `h${i}-${'x'.repeat(60)}.example.com`);
    const one = Buffer.byteLength(JSON.stringify(report('a', long))) + 1;
    const spec = projectReports(
      'r1',
      ['a', 'b', 'c', 'd'].map((app) => report(app, long)),
      4000,
      one * 2 + 10,
    ).get('p');
    expect(spec?.apps.map((a) => a.app)).toEqual(['a', 'b']);
    expect(spec?.omittedApps).toBe(2);
  });

  it('keeps a multi-line failure message (workerd output) and cuts a long one to the schema bound', () => {
    const failure = (message: string) => ({ ...report('a'), failure: { reason: 'BuildFailed' as const, buildId: 'b-1', message } });
    expect(projectReports('r1', [failure('Uncaught SyntaxError\n  at worker.js:2')]).get('p')?.apps[0]?.failure?.message).toBe('Uncaught SyntaxError\n  at worker.js:2');
    const cut = projectReports('r1', [failure('x'.repeat(10_000))]).get('p')?.apps[0]?.failure?.message ?? '';
    expect(cut).toHaveLength(4096);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('reports every one of 4100 apps over 41 projects, each object far inside etcd’s limit', () => {
    const apps = Array.from({ length: 4100 }, (_, i) => report(`app-${String(i % 100).padStart(3, '0')}`, undefined, `p-${String(Math.floor(i / 100)).padStart(2, '0')}`));
    const specs = projectReports('r1', apps);
    expect(specs.size).toBe(41);
    expect([...specs.values()].reduce((n, s) => n + s.apps.length, 0)).toBe(4100);
    for (const spec of specs.values()) {
      expect(spec.omittedApps).toBeUndefined();
      expect(Buffer.byteLength(JSON.stringify(spec))).toBeLessThan(64 * 1024);
    }
  });
});

describe('reportChanges', () => {
  const written = (specs: ReturnType<typeof projectReports>) => new Map([...specs].map(([project, spec]) => [project, reportFingerprint(spec)]));

  it('writes every project at first', () => {
    const changes = reportChanges(new Map(), projectReports('r1', [report('a', undefined, 'p'), report('a', undefined, 'q')]));
    expect(changes.apply.map((c) => c.project)).toEqual(['p', 'q']);
    expect(changes.delete).toEqual([]);
  });

  it('rewrites only the project whose reports changed', () => {
    const before = projectReports('r1', [report('a', undefined, 'p'), report('a', undefined, 'q')]);
    const after = projectReports('r1', [report('a', undefined, 'p'), { ...report('a', undefined, 'q'), observedGeneration: 2 }]);
    const changes = reportChanges(written(before), after);
    expect(changes.apply.map((c) => c.project)).toEqual(['q']);
    expect(changes.apply[0]?.fingerprint).toBe(reportFingerprint(after.get('q')!));
    expect(changes.delete).toEqual([]);
  });

  it('given the projects looked at, deletes none of the others', () => {
    const before = projectReports('r1', [report('a', undefined, 'p'), report('a', undefined, 'q'), report('a', undefined, 'r')]);
    const onlyP = projectReports('r1', [{ ...report('a', undefined, 'p'), observedGeneration: 2 }]);
    const changes = reportChanges(written(before), onlyP, new Set(['p', 'r']));
    expect(changes.apply.map((c) => c.project)).toEqual(['p']);
    expect(changes.delete).toEqual(['r']);
  });

  it('deletes the object of a project with no report left, and writes nothing when nothing changed', () => {
    const before = projectReports('r1', [report('a', undefined, 'p'), report('a', undefined, 'q')]);
    expect(reportChanges(written(before), projectReports('r1', [report('a', undefined, 'p')]))).toEqual({ apply: [], delete: ['q'] });
    expect(reportChanges(written(before), before)).toEqual({ apply: [], delete: [] });
  });
});
