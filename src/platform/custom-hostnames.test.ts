import { describe, expect, it } from 'vitest';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { customHostnameProblem, managedDomainNames } from './custom-hostnames.ts';

const domain = (name: string, state: 'managed' | 'pending_delegation', deleted = false): ProjectDomain => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'ProjectDomain',
  metadata: { name: name.replace(/\./g, '-'), namespace: 'p1' },
  spec: { domain: name, ...(deleted ? { deleted: true } : {}) },
  status: { state },
});

describe('custom host names on deploy', () => {
  const managed = managedDomainNames([domain('Shop.Example', 'managed'), domain('pending.example', 'pending_delegation'), domain('gone.example', 'managed', true)]);

  it('counts only managed, live project domains', () => {
    expect(managed).toEqual(['shop.example']);
  });

  it.each([
    ['the apex of a managed domain', 'shop.example', []],
    ['a subdomain of a managed domain', 'www.shop.example', []],
    ['a name the app already binds (attached and finalized)', 'www.other.example', ['www.other.example']],
  ])('allows %s', (_what, hostname, bound) => {
    expect(customHostnameProblem(hostname, { project: 'p1', appId: 'web', bound }, managed)).toBeUndefined();
  });

  it.each([
    ['a name under a domain still pending delegation', 'www.pending.example'],
    ['a look-alike of a managed domain', 'evilshop.example'],
    ['a name under a soft-deleted domain', 'www.gone.example'],
    ['any other custom name', 'www.bank.example'],
  ])('refuses %s, saying how to prove control', (_what, hostname) => {
    expect(customHostnameProblem(hostname, { project: 'p1', appId: 'web', bound: [] }, managed)).toMatch(/Attach it first \(POST \/v1\/projects\/p1\/apps\/web\/domains/);
  });
});
