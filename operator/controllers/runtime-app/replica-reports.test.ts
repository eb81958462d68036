import { describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import type { RuntimeAppReport } from './replica-reports.ts';
import { changedAppKeys, indexReports } from './replica-reports.ts';

const report = (app: string, over: Partial<RuntimeAppReport> = {}): RuntimeAppReport => ({ namespace: 'p', app, hosts: [], observedGeneration: 1, ...over });
const replica = (...apps: RuntimeAppReport[]): RuntimeReplica => ({ metadata: { namespace: 'cw', name: 'r1' }, spec: { ready: true, apps: apps.map((a) => ({ ...a, hosts: [...a.hosts] })) } });

describe('changedAppKeys', () => {
  it('names the apps whose report was added, changed or dropped, and no other', () => {
    const before = indexReports(replica(report('a'), report('b'), report('c')));
    const after = indexReports(replica(report('a'), report('b', { servingBuildId: 'b-1', servedGeneration: 1 }), report('d')));
    expect(changedAppKeys(before, after).sort()).toEqual(['p/b', 'p/c', 'p/d']);
  });

  it('is empty when nothing changed (a readiness-only rewrite)', () => {
    expect(changedAppKeys(indexReports(replica(report('a'))), indexReports(replica(report('a'))))).toEqual([]);
  });

  it('names every app of a replica that is gone', () => {
    expect(changedAppKeys(indexReports(replica(report('a'), report('b'))), indexReports(undefined)).sort()).toEqual(['p/a', 'p/b']);
  });
});
