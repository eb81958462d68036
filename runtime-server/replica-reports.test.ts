import { describe, expect, it } from 'vitest';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { replicaSpec } from './replica-reports.ts';

const report = (app: string, hosts = [`${app}.p.apps.localhost`]): RuntimeAppReport => ({
  namespace: 'p',
  app,
  servingBuildId: 'b-0123456789abcdef',
  hosts,
  url: `https://${hosts[0]}`,
  servedGeneration: 1,
  observedGeneration: 1,
});

describe('replicaSpec', () => {
  it('carries every report and the readiness while within bounds', () => {
    expect(replicaSpec({ ready: true, apps: [report('a'), report('b')] })).toEqual({ ready: true, apps: [report('a'), report('b')] });
  });

  it('keeps reports in order up to the count bound and counts the rest', () => {
    const spec = replicaSpec({ ready: false, apps: [report('a'), report('b'), report('c')] }, 2);
    expect(spec.apps.map((a) => a.app)).toEqual(['a', 'b']);
    expect(spec.omittedApps).toBe(1);
  });

  it('stops at the byte budget, whatever the count (apps with many long host names)', () => {
    const long = Array.from({ length: 60 }, (_, i) => `h${i}-${'x'.repeat(60)}.example.com`);
    const one = Buffer.byteLength(JSON.stringify(report('a', long))) + 1;
    const spec = replicaSpec({ ready: true, apps: ['a', 'b', 'c', 'd'].map((app) => report(app, long)) }, 4000, one * 2 + 10);
    expect(spec.apps.map((a) => a.app)).toEqual(['a', 'b']);
    expect(spec.omittedApps).toBe(2);
  });

  it('keeps a multi-line failure message (workerd output) and cuts a long one to the schema bound', () => {
    const failure = (message: string) => ({ ...report('a'), failure: { reason: 'BuildFailed' as const, buildId: 'b-1', message } });
    expect(replicaSpec({ ready: true, apps: [failure('Uncaught SyntaxError\n  at worker.js:2')] }).apps[0]?.failure?.message).toBe('Uncaught SyntaxError\n  at worker.js:2');
    const cut = replicaSpec({ ready: true, apps: [failure('x'.repeat(10_000))] }).apps[0]?.failure?.message ?? '';
    expect(cut).toHaveLength(4096);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('holds the documented 4000 typical reports within 1 MiB', () => {
    const apps = Array.from({ length: 4001 }, (_, i) => report(`app-${String(i).padStart(5, '0')}`));
    const spec = replicaSpec({ ready: true, apps });
    expect(spec.apps).toHaveLength(4000);
    expect(spec.omittedApps).toBe(1);
    expect(Buffer.byteLength(JSON.stringify(spec))).toBeLessThan(1024 * 1024);
  });
});
