// The DNS routes when the controller has not answered within the bound (a DNS provider call held past it,
// through MemoryDnsProvider.holdNext): each answers 202 with the object as it stands, never a state the
// controller did not report, and the work finishes once the provider answers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DomainView, HostnameView, RecordView } from '../../src/platform/domains/views.ts';
import { BASE_DOMAIN, memoryDns, type MemoryDns } from './testing/memory-dns.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

/** Short, so a held provider call outlasts it; the steps around the held one wait for their outcome instead. */
const BOUND_MS = 1_000;

let dns: MemoryDns;
let platform: PlatformApp;
let me: { project: string; token: string };

beforeAll(async () => {
  dns = await memoryDns();
  platform = await platformApp({ dns: dns.settings, baseDomain: BASE_DOMAIN, dnsAnswerWithinMs: BOUND_MS });
  const user = await platform.createUser();
  me = { project: await platform.createProject(user, { namespace: true }), token: await platform.tokenFor(user, ['apps:write', 'domain:write']) };
  expect((await call('POST', '/apps', { name: 'web' })).statusCode).toBe(201);
});
afterAll(async () => {
  await platform?.close();
  await dns?.stop();
});

type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${me.project}${path}`, headers: { authorization: `Bearer ${me.token}` }, ...(payload ? { payload } : {}) });

async function ok<T>(status: number, method: Method, path: string, payload?: object): Promise<T> {
  const res = await call(method, path, payload);
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

/** A write the controller may or may not answer within the short bound on a loaded machine: 200, 201 or 202. */
async function accepted(method: Method, path: string, payload?: object): Promise<void> {
  const res = await call(method, path, payload);
  expect([200, 201, 202], res.body).toContain(res.statusCode);
}

const domainNow = async (domain: string) => (await ok<{ domain: DomainView }>(200, 'GET', `/domains/${domain}`)).domain;

/** A project domain whose delegation the real check verified. */
async function managedDomain(): Promise<string> {
  const domain = dns.domain('bound');
  await accepted('POST', '/domains', { domain });
  await vi.waitFor(async () => expect((await domainNow(domain)).nameservers.length).toBeGreaterThan(0), { timeout: 10_000 });
  dns.parent.delegate(domain, (await domainNow(domain)).nameservers);
  await accepted('POST', `/domains/${domain}/delegation-check`);
  await vi.waitFor(async () => expect((await domainNow(domain)).status).toBe('managed'), { timeout: 10_000 });
  return domain;
}

const hostnames = async () => (await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/web/domains')).domains;

describe('a controller that has not answered within the bound', () => {
  it('adding a domain whose zone is not created yet: 202, where to follow it, no nameservers invented; then they come', async () => {
    const domain = dns.domain('slow');
    const release = dns.provider.holdNext('createZone');
    try {
      const res = await call('POST', '/domains', { domain });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.headers.location).toBe(`/v1/projects/${me.project}/domains/${domain}`);
      expect(res.json().domain).toMatchObject({ domain, status: 'pending_delegation', status_reason: 'Creating', hosted_zone_id: '', nameservers: [] });
    } finally {
      release();
    }
    await vi.waitFor(async () => expect((await domainNow(domain)).nameservers.length).toBeGreaterThan(0), { timeout: 10_000 });
  });

  it('a managed attach whose records are still being written: 202 pending, not failed; applied once written', async () => {
    const domain = await managedDomain();
    const host = `www.${domain}`;
    const release = dns.provider.holdNext('applyChanges');
    try {
      const attached = await ok<HostnameView>(202, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
      expect(attached).toMatchObject({ domain: host, status: 'pending', managed_dns: { project_domain: domain, status: 'pending' } });
    } finally {
      release();
    }
    await vi.waitFor(async () => expect((await hostnames()).find((h) => h.domain === host)?.managed_dns?.status).toBe('applied'), { timeout: 10_000 });
  });

  it('a record whose write has not reached the zone: 202 pending', async () => {
    const domain = await managedDomain();
    const release = dns.provider.holdNext('applyChanges');
    try {
      const { record } = await ok<{ record: RecordView }>(202, 'POST', `/domains/${domain}/records`, { name: 'api', type: 'A', value: '192.0.2.7' });
      expect(record).toMatchObject({ name: 'api', status: 'pending' });
    } finally {
      release();
    }
    await vi.waitFor(async () => expect((await ok<{ records: RecordView[] }>(200, 'GET', `/domains/${domain}/records`)).records[0]?.status).toBe('applied'), { timeout: 10_000 });
  });

  it('detaching a hostname whose records are still leaving the zone: 202 deleting; gone once they have', async () => {
    const domain = await managedDomain();
    const host = `shop.${domain}`;
    await accepted('POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    await vi.waitFor(async () => expect((await hostnames()).find((h) => h.domain === host)?.managed_dns?.status).toBe('applied'), { timeout: 10_000 });
    const release = dns.provider.holdNext('applyChanges');
    try {
      expect(await ok<HostnameView>(202, 'DELETE', `/apps/web/domains/${host}`)).toMatchObject({ domain: host, status: 'deleting', status_reason: 'Deleting' });
    } finally {
      release();
    }
    await vi.waitFor(async () => expect((await ok<{ records: RecordView[] }>(200, 'GET', `/domains/${domain}/records`)).records).toEqual([]), { timeout: 10_000 });
    expect((await hostnames()).map((h) => h.domain)).not.toContain(host);
  });

  it('deleting a domain whose zone is not deleted yet: 202 Deleting, then gone', async () => {
    const domain = dns.domain('slowdel');
    await accepted('POST', '/domains', { domain });
    await vi.waitFor(async () => expect((await domainNow(domain)).nameservers.length).toBeGreaterThan(0), { timeout: 10_000 });
    const release = dns.provider.holdNext('deleteZone');
    try {
      expect((await ok<{ domain: DomainView }>(202, 'DELETE', `/domains/${domain}`)).domain).toMatchObject({ domain, status: 'deleted', status_reason: 'Deleting' });
    } finally {
      release();
    }
    expect((await call('GET', `/domains/${domain}`)).statusCode).toBe(404);
  });
});
