import { describe, expect, it } from 'vitest';
import { countedPlural, countResource, PROJECT_OBJECT_COUNTS, projectQuotaDrifted, projectResourceQuota, quotaCounted, quotaRefusalDetail } from './project-quota.ts';

describe('the project quota', () => {
  it('counts each Cloudwright kind a project namespace holds, with the API’s numbers', () => {
    expect(PROJECT_OBJECT_COUNTS).toEqual({
      runtimeapps: 100,
      builds: 10_100,
      apphostnames: 3200,
      projectdomains: 120,
      dnsrecords: 50_000,
      databases: 50,
      repositories: 100,
      repositorywebhooks: 100,
      gittokens: 300,
      tlscertificates: 3250,
      appsources: 100,
      sourcebuilds: 2100,
    });
    const quota = projectResourceQuota('p1');
    expect(quota.metadata).toEqual({ name: 'cloudwright-project', namespace: 'p1', labels: { 'cloudwright.dev/project': 'p1' } });
    expect(quota.spec.hard['count/runtimeapps.cloudwright.dev']).toBe('100');
    expect(Object.keys(quota.spec.hard)).toHaveLength(12);
  });

  it('names quota resources both ways', () => {
    expect(countResource('databases')).toBe('count/databases.cloudwright.dev');
    expect(countedPlural('count/databases.cloudwright.dev')).toBe('databases');
    expect(countedPlural('count/secrets')).toBeUndefined();
    expect(countedPlural('count/widgets.example.com')).toBeUndefined();
  });

  it.each<[string, { spec?: { hard?: Record<string, string> } } | undefined, boolean]>([
    ['as written', projectResourceQuota('p1'), false],
    ['as the apiserver stores it (canonical quantities), with a limit someone else added', canonical({ pods: '0' }), false],
    ['missing', undefined, true],
    ['with a count raised', canonical({ 'count/runtimeapps.cloudwright.dev': '3002' }), true],
    ['with a count removed', { spec: { hard: { 'count/runtimeapps.cloudwright.dev': '100' } } }, true],
  ])('%s: drifted %s', (_, quota, drifted) => expect(projectQuotaDrifted(quota)).toBe(drifted));
});

describe('quotaRefusalDetail', () => {
  it('names the full counts in words, with the quota that refused', () => {
    const exceeded = [
      { resource: 'count/runtimeapps.cloudwright.dev', used: 100, limited: 100 },
      { resource: 'count/widgets.example.com', used: 3, limited: 3 },
    ];
    expect(quotaRefusalDetail({ kind: 'exceeded', quota: 'cloudwright-project', exceeded })).toBe(
      'The project has 100 apps of the 100 its quota cloudwright-project allows and 3 count/widgets.example.com of the 3 its quota cloudwright-project allows; delete some first.',
    );
  });

  it('says a quota not counted yet is a matter of seconds', () => {
    expect(quotaRefusalDetail({ kind: 'status-unknown', quota: 'cloudwright-project' })).toBe("The project's quota (cloudwright-project) is still being counted; retry in a few seconds.");
  });
});

/** The quota as the apiserver stores it: 50000 as 50k, 10100 as 10100; `changes` on top. */
function canonical(changes: Record<string, string>): { spec: { hard: Record<string, string> } } {
  const hard = { ...projectResourceQuota('p1').spec.hard, 'count/dnsrecords.cloudwright.dev': '50k' };
  return { spec: { hard: { ...hard, ...changes } } };
}

describe('quotaCounted', () => {
  it('holds once the controller manager has counted every resource of the spec as it reads now', () => {
    const spec = { hard: { 'count/runtimeapps.cloudwright.dev': '100', 'count/builds.cloudwright.dev': '2100' } };
    expect(quotaCounted(undefined)).toBe(false);
    expect(quotaCounted({ spec })).toBe(false); // written, not counted yet
    expect(quotaCounted({ spec, status: { hard: { 'count/runtimeapps.cloudwright.dev': '100' }, used: { 'count/runtimeapps.cloudwright.dev': '0' } } })).toBe(false);
    const counted = { hard: spec.hard, used: { 'count/runtimeapps.cloudwright.dev': '0', 'count/builds.cloudwright.dev': '0' } };
    expect(quotaCounted({ spec, status: counted })).toBe(true);
    expect(quotaCounted({ spec: { hard: { ...spec.hard, 'count/builds.cloudwright.dev': '2200' } }, status: counted })).toBe(false); // the spec changed since
  });
});
