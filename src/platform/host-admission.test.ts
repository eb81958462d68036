import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { DEMOTION_GRACE_MS, nameHolder, platformProjectIds, serveRefusal, type NameFacts } from './host-admission.ts';

const now = new Date('2030-01-01T00:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

function domain(name: string, state: 'managed' | 'pending_delegation', extra: { delegatedAt?: string; demotedAt?: string } = {}): ProjectDomain {
  return {
    spec: { domain: name },
    status: {
      state,
      hostedZoneId: 'Z1',
      ...(extra.delegatedAt ? { delegatedAt: extra.delegatedAt } : {}),
      conditions: [{ type: 'Delegated', status: state === 'managed' ? 'True' : 'False', reason: 'x', message: '', lastTransitionTime: extra.demotedAt ?? ago(1000) }],
    },
  } as ProjectDomain;
}

/** alpha holds shop.test (managed) and new.test (never delegated); beta holds the custom host name promo.shop.test and x.other.test (active), and demoted.test. */
const facts = (overrides: Partial<NameFacts> = {}): NameFacts => ({
  baseDomain: 'apps.example.com',
  now,
  domainHolder: (name) => ({ 'shop.test': 'alpha', 'new.test': 'alpha', 'demoted.test': 'beta', 'gone.test': 'beta' })[name],
  hostnameHolder: (name) => ({ 'promo.shop.test': 'beta', 'x.other.test': 'beta', 'y.other.test': 'beta' })[name],
  projectDomain: (project, name) =>
    (
      {
        'alpha/shop.test': domain('shop.test', 'managed', { delegatedAt: ago(10_000) }),
        'alpha/new.test': domain('new.test', 'pending_delegation'),
        'beta/demoted.test': domain('demoted.test', 'pending_delegation', { delegatedAt: ago(10 * DEMOTION_GRACE_MS), demotedAt: ago(3_600_000) }),
        'beta/gone.test': domain('gone.test', 'pending_delegation', { delegatedAt: ago(10 * DEMOTION_GRACE_MS), demotedAt: ago(DEMOTION_GRACE_MS + 1000) }),
      } as Record<string, ProjectDomain>
    )[`${project}/${name}`],
  hostnameActive: (project, host) => project === 'beta' && (host === 'x.other.test' || host === 'promo.shop.test'),
  ...overrides,
});

describe('serveRefusal', () => {
  it.each([
    ['alpha', 'web.alpha.apps.example.com'],
    ['alpha', 'shop.test'],
    ['alpha', 'www.shop.test'],
    ['beta', 'promo.shop.test'],
    ['beta', 'x.other.test'],
    ['beta', 'demoted.test'],
  ])('lets %s serve %s', (project, host) => {
    expect(serveRefusal(project, host, facts())).toBeUndefined();
  });

  it.each([
    ['alpha', 'web.beta.apps.example.com', "in another project's part of apps.example.com"],
    ['alpha', 'apps.example.com', "in another project's part"],
    ['beta', 'www.shop.test', 'under shop.test, a domain another project holds'],
    ['alpha', 'promo.shop.test', 'a custom host name another project holds'],
    ['alpha', 'www.new.test', 'new.test has not been delegated'],
    ['beta', 'y.other.test', 'not an active custom host name'],
    ['beta', 'gone.test', 'gone.test has not been delegated'],
    ['alpha', 'nobody.test', 'held by no project'],
  ])('refuses %s %s (%s)', (project, host, why) => {
    expect(serveRefusal(project, host, facts())).toContain(why);
  });
});

describe('platformProjectIds', () => {
  it('reserves the project each platform host in the base domain would fall to, and none for hosts elsewhere', () => {
    const ids = platformProjectIds('apps.example.com', ['runtime.apps.example.com', 'api.console.apps.example.com', 'git.example.com', 'apps.example.com', 'RUNTIME.apps.example.com.']);
    expect(ids).toEqual(['runtime', 'console']);
  });
});

describe('nameHolder', () => {
  it.each([
    ['web.alpha.apps.example.com', { project: 'alpha', claim: 'base', name: 'alpha.apps.example.com' }],
    // A project's part of the base domain is below its name, not the name itself, where the platform's own hosts are.
    ['alpha.apps.example.com', undefined],
    ['runtime.apps.example.com', undefined],
    ['www.shop.test', { project: 'alpha', claim: 'domain', name: 'shop.test' }],
    // The name's own claim decides before the domain above it.
    ['promo.shop.test', { project: 'beta', claim: 'hostname', name: 'promo.shop.test' }],
    ['y.other.test', { project: 'beta', claim: 'hostname', name: 'y.other.test' }],
    ['apps.example.com', undefined],
    ['nobody.test', undefined],
  ])('finds whose claim decides %s', (host, holder) => {
    expect(nameHolder(host, facts())).toEqual(holder);
  });

  it('names the only project that may serve a name', () => {
    const hosts = ['web.alpha.apps.example.com', 'shop.test', 'www.shop.test', 'promo.shop.test', 'x.other.test', 'demoted.test', 'www.new.test', 'nobody.test'];
    for (const host of hosts) {
      for (const project of ['alpha', 'beta', 'gamma']) {
        if (serveRefusal(project, host, facts()) === undefined) expect(nameHolder(host, facts())?.project).toBe(project);
      }
    }
  });
});
