import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { customHostnameProblem } from './custom-hostnames.ts';
import { factsFromObjects } from './host-admission.ts';

const domain = (name: string, project: string, state: 'managed' | 'pending_delegation', deleted = false): ProjectDomain => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'ProjectDomain',
  metadata: { name: name.replace(/\./g, '-'), namespace: project },
  spec: { domain: name, ...(deleted ? { deleted: true } : {}) },
  status: { state, hostedZoneId: 'Z1', ...(state === 'managed' ? { delegatedAt: '2030-01-01T00:00:00Z' } : {}) },
});

describe('custom host names on deploy', () => {
  const facts = factsFromObjects(
    [domain('shop.example', 'p1', 'managed'), domain('pending.example', 'p1', 'pending_delegation'), domain('gone.example', 'p1', 'managed', true), domain('theirs.example', 'p2', 'managed')],
    () => [],
    'apps.example.com',
    new Date('2030-01-02T00:00:00Z'),
  );

  it.each([
    ['the apex of a managed domain', 'shop.example', []],
    ['a subdomain of a managed domain', 'www.shop.example', []],
    ['a name the app already binds (attached and finalized)', 'www.other.example', ['www.other.example']],
  ])('allows %s', (_what, hostname, bound) => {
    expect(customHostnameProblem(hostname, { project: 'p1', appId: 'web', bound }, facts)).toBeUndefined();
  });

  it.each([
    ['a name under a domain still pending delegation', 'www.pending.example'],
    ['a look-alike of a managed domain', 'evilshop.example'],
    ['a name under a soft-deleted domain', 'www.gone.example'],
    ["a name under another project's domain", 'www.theirs.example'],
    ['any other custom name', 'www.bank.example'],
  ])('refuses %s, saying how to prove control', (_what, hostname) => {
    expect(customHostnameProblem(hostname, { project: 'p1', appId: 'web', bound: [] }, facts)).toMatch(/Attach it first \(POST \/v1\/projects\/p1\/apps\/web\/domains/);
  });
});
