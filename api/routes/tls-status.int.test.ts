// The `tls` block of the hostname and project-domain views on the real apiserver: TlsCertificates are created
// owned by an AppHostname or a ProjectDomain and their status written through the status subresource, as the
// certificate controller does; the routes answer what the API's cache shows. A certificate of another
// project, owned by its own AppHostname of the same name, is never shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate, TlsCertificateStatus } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { objectClient, type KubeObject } from '../../src/kube/index.ts';
import type { TlsView } from '../../src/platform/domains/tls-view.ts';
import type { DomainView, HostnameView } from '../../src/platform/domains/views.ts';
import { APP_HOSTNAMES, PROJECT_DOMAINS, TLS_CERTIFICATES } from '../../src/platform/resources.ts';
import { BASE_DOMAIN, memoryDns, type MemoryDns } from './testing/memory-dns.ts';
import { platformApp, unique, type PlatformApp } from './testing/platform-app.ts';

let dns: MemoryDns;
let platform: PlatformApp;
let me: { project: string; token: string };
let rival: { project: string; token: string };

beforeAll(async () => {
  dns = await memoryDns();
  platform = await platformApp({ dns: dns.settings, baseDomain: BASE_DOMAIN });
  const account = async () => {
    const user = await platform.createUser();
    return { project: await platform.createProject(user, { namespace: true }), token: await platform.tokenFor(user, ['apps:write', 'domain:write']) };
  };
  [me, rival] = await Promise.all([account(), account()]);
  for (const as of [me, rival]) expect((await call('POST', '/apps', { name: 'web' }, as)).statusCode).toBe(201);
});
afterAll(async () => {
  await platform?.close();
  await dns?.stop();
});

const call = (method: 'GET' | 'POST', path: string, payload?: object, as = me) =>
  platform.app.inject({ method, url: `/v1/projects/${as.project}${path}`, headers: { authorization: `Bearer ${as.token}` }, ...(payload ? { payload } : {}) });

async function ok<T>(status: number, method: 'GET' | 'POST', path: string, payload?: object, as = me): Promise<T> {
  const res = await call(method, path, payload, as);
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

const certificates = () => objectClient<TlsCertificate>(platform.conn, TLS_CERTIFICATES);

/** A TlsCertificate owned by `owner`, as the certificate controller makes one (in the owner's namespace). */
async function certificateOf(kind: 'AppHostname' | 'ProjectDomain', owner: KubeObject, dnsNames: string[]): Promise<TlsCertificate> {
  const { namespace = '', name = '', uid = '' } = owner.metadata ?? {};
  return certificates().create({
    apiVersion: API_VERSION,
    kind: 'TlsCertificate',
    metadata: { name: unique('cert'), namespace, ownerReferences: [{ apiVersion: API_VERSION, kind, name, uid, controller: true, blockOwnerDeletion: true }] },
    spec: { dnsNames, challenge: kind === 'ProjectDomain' ? 'dns-01' : 'http-01', ...(kind === 'ProjectDomain' ? { domainRef: { name } } : {}) },
  });
}

/** Replaces the status through the status subresource, as the certificate controller does. */
async function writeStatus(cert: TlsCertificate, status: TlsCertificateStatus): Promise<void> {
  const current = await certificates().get(cert.metadata?.namespace ?? '', cert.metadata?.name ?? '');
  await certificates().replaceStatus({ ...(current ?? cert), status });
}

const hostnameTls = async (host: string, as = me): Promise<TlsView | undefined> =>
  (await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/web/domains', undefined, as)).domains.find((h) => h.domain === host)?.tls;

const NONE: TlsView = { status: 'none', not_after: null, issuer: null, last_error: null, next_attempt_at: null };

describe('the tls block of a hostname', () => {
  it('says none without a certificate, then follows the certificate controller’s status: pending, failed with why and when next, issued', async () => {
    const host = `www.${dns.domain('tls')}`;
    const attached = await ok<HostnameView>(200, 'POST', '/apps/web/domains', { domain: host });
    expect(attached.tls).toEqual(NONE);
    const binding = await objectClient<AppHostname>(platform.conn, APP_HOSTNAMES).get(me.project, host);
    const cert = await certificateOf('AppHostname', binding ?? {}, [host]);
    // Made, not looked at by the controller yet.
    await expect.poll(() => hostnameTls(host)).toEqual({ ...NONE, status: 'pending' });

    const failure = { reason: 'CAAForbidden', message: `A CAA record of ${host} forbids this CA (letsencrypt.org only).`, at: '2026-11-29T10:00:00Z' };
    await writeStatus(cert, { state: 'Failed', lastError: failure, failures: 2, nextAttemptAt: '2026-11-29T10:20:00Z', order: { url: 'https://ca.test/order/1', dnsNames: [host] } });
    await expect.poll(() => hostnameTls(host)).toEqual({ status: 'failed', not_after: null, issuer: null, last_error: failure, next_attempt_at: '2026-11-29T10:20:00Z' });

    const issued = { state: 'Issued', notBefore: '2026-11-29T10:30:00Z', notAfter: '2027-02-27T10:30:00Z', issuer: 'Pebble Intermediate CA 4f1a2b', serial: '0a1b2c' } as const;
    await writeStatus(cert, issued);
    await expect.poll(() => hostnameTls(host)).toEqual({ status: 'issued', not_after: issued.notAfter, issuer: issued.issuer, last_error: null, next_attempt_at: null });
    // The attach answer (repeated: idempotent) carries it too.
    expect((await ok<HostnameView>(200, 'POST', '/apps/web/domains', { domain: host })).tls).toMatchObject({ status: 'issued', not_after: issued.notAfter });
  });

  it('never shows the certificate of another project’s hostname of the same name', async () => {
    const host = `shop.${dns.domain('shared')}`;
    // Both projects attach the name (several may, until one verifies it): two AppHostnames named alike.
    await ok<HostnameView>(200, 'POST', '/apps/web/domains', { domain: host });
    await ok<HostnameView>(200, 'POST', '/apps/web/domains', { domain: host }, rival);
    const theirs = await objectClient<AppHostname>(platform.conn, APP_HOSTNAMES).get(rival.project, host);
    const cert = await certificateOf('AppHostname', theirs ?? {}, [host]);
    await writeStatus(cert, { state: 'Issued', notAfter: '2027-03-01T00:00:00Z', issuer: 'Rival CA' });
    // The rival sees theirs (so the cache holds it), and this project still none.
    await expect.poll(() => hostnameTls(host, rival)).toMatchObject({ status: 'issued', issuer: 'Rival CA' });
    expect(await hostnameTls(host)).toEqual(NONE);
  });
});

describe('the tls block of a project domain', () => {
  it('shows the certificate for the domain and its wildcard, in the domain and in the list', async () => {
    const domain = dns.domain('tlsdomain');
    const added = (await ok<{ domain: DomainView }>(201, 'POST', '/domains', { domain })).domain;
    expect(added.tls).toEqual(NONE);
    dns.parent.delegate(domain, added.nameservers);
    expect((await ok<{ domain: DomainView }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain).toMatchObject({ status: 'managed', tls: NONE });
    const { items } = await objectClient<ProjectDomain>(platform.conn, PROJECT_DOMAINS).list(me.project);
    const object = items.find((d) => d.spec.domain === domain);
    const cert = await certificateOf('ProjectDomain', object ?? {}, [domain, `*.${domain}`]);
    await writeStatus(cert, {
      state: 'Renewing',
      notAfter: '2026-12-10T00:00:00Z',
      issuer: 'Pebble Intermediate CA 4f1a2b',
      lastError: { reason: 'RateLimited', message: 'The CA refuses new orders for this domain until 2026-11-30T00:00:00Z.', at: '2026-11-29T09:00:00Z' },
      nextAttemptAt: '2026-11-30T00:00:00Z',
    });
    const want: TlsView = {
      status: 'renewing',
      not_after: '2026-12-10T00:00:00Z',
      issuer: 'Pebble Intermediate CA 4f1a2b',
      last_error: { reason: 'RateLimited', message: 'The CA refuses new orders for this domain until 2026-11-30T00:00:00Z.', at: '2026-11-29T09:00:00Z' },
      next_attempt_at: '2026-11-30T00:00:00Z',
    };
    await expect.poll(async () => (await ok<{ domain: DomainView }>(200, 'GET', `/domains/${domain}`)).domain.tls).toEqual(want);
    expect((await ok<{ domains: DomainView[] }>(200, 'GET', '/domains')).domains.find((d) => d.domain === domain)?.tls).toEqual(want);
    // Not the rival's to read: the project route refuses (the certificate is never reached).
    expect((await call('GET', `/domains/${domain}`, undefined, { project: me.project, token: rival.token })).statusCode).toBe(403);
  });
});
