// The app-hostname routes on the real apiserver: attach in both DNS modes (with a provider failure injected
// through MemoryDnsProvider.failNext), finalize against a real parent-zone server for `test.` whose records
// the tests publish, and the refusals that keep one hostname with one app.
import { domainToASCII } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { HostnameClaim } from '../../src/apis/v1alpha1/domain-claim.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient } from '../../src/kube/index.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import type { RuntimeTarget } from '../../src/dns/app-records.ts';
import type { HostnameView, RecordView } from '../../src/platform/domains/views.ts';
import { APP_HOSTNAMES, HOSTNAME_CLAIMS, RUNTIME_APPS } from '../../src/platform/resources.ts';
import { BASE_DOMAIN, memoryDns, RUNTIME_IPV4, RUNTIME_TARGET, type MemoryDns } from './testing/memory-dns.ts';
import { zoneContents } from '../../operator/testing/test-dns-settings.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

let dns: MemoryDns;
let platform: PlatformApp;
let me: { project: string; token: string };
let rival: { project: string; token: string };

beforeAll(async () => {
  dns = await memoryDns();
  platform = await platformApp({ dns: dns.settings, baseDomain: BASE_DOMAIN });
  const account = async () => {
    const user = await platform.createUser();
    return { project: await platform.createProject(user, { namespace: true }), token: await platform.tokenFor(user, ['apps:write', 'deploys:write', 'domain:write']) };
  };
  [me, rival] = await Promise.all([account(), account()]);
  for (const as of [me, rival]) for (const name of ['web', 'api']) expect((await call('POST', '/apps', { name }, as)).statusCode).toBe(201);
});
afterAll(async () => {
  await platform?.close();
  await dns?.stop();
});

type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, path: string, payload?: object, as = me) =>
  platform.app.inject({ method, url: `/v1/projects/${as.project}${path}`, headers: { authorization: `Bearer ${as.token}` }, ...(payload ? { payload } : {}) });

async function ok<T = HostnameView>(status: number, method: Method, path: string, payload?: object, as = me): Promise<T> {
  const res = await call(method, path, payload, as);
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

async function refused(status: number, method: Method, path: string, payload?: object, as = me): Promise<string> {
  const res = await call(method, path, payload, as);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toContain('application/problem+json');
  return res.json().detail;
}

/** A project domain of `me`, managed through the real delegation check unless told otherwise. */
async function addDomain(managed = true): Promise<{ domain: string; zoneId: string }> {
  const domain = dns.domain('host');
  const added = (await ok<{ domain: { hosted_zone_id: string; nameservers: string[] } }>(201, 'POST', '/domains', { domain })).domain;
  if (managed) {
    dns.parent.delegate(domain, added.nameservers);
    expect((await ok<{ domain: { status: string } }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain.status).toBe('managed');
  }
  return { domain, zoneId: added.hosted_zone_id };
}

const zone = (zoneId: string, domain: string) => zoneContents(dns.provider, zoneId, domain);

const records = async (domain: string) => (await ok<{ records: RecordView[] }>(200, 'GET', `/domains/${domain}/records`)).records;
const hostnameObject = (host: string, as = me) => objectClient<AppHostname>(platform.conn, APP_HOSTNAMES).get(as.project, host);
/** The host names the app is served on besides its default host: its deploy's, then its active bindings. */
const appHosts = async (appId: string, as = me) => (await ok<{ app: { hosts: string[] } }>(200, 'GET', `/apps/${appId}`, undefined, as)).app.hosts.slice(1);

describe('scopes', () => {
  it('needs domain:write to have records written into a project domain, not to publish them oneself', async () => {
    const user = await platform.createUser();
    const appsOnly = { project: await platform.createProject(user, { namespace: true }), token: await platform.tokenFor(user, ['apps:write']) };
    expect((await call('POST', '/apps', { name: 'web' }, appsOnly)).statusCode).toBe(201);
    const host = `www.${dns.domain('scopes')}`;
    const managed = await call('POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' }, appsOnly);
    expect([managed.statusCode, managed.json().detail]).toEqual([403, 'This token lacks the scope domain:write.']);
    expect((await call('POST', '/apps/web/domains', { domain: host }, appsOnly)).statusCode).toBe(200);
  });
});

describe('attach in external_records mode', () => {
  it('answers the CNAME and the ownership challenge, keeps the token across repeats, and finalizes once they are live', async () => {
    const host = `www.${dns.domain('ext')}`;
    const attached = await ok(200, 'POST', '/apps/web/domains', { domain: host.toUpperCase() });
    expect(attached).toMatchObject({ domain: host, dns_mode: 'external_records', app_id: 'web', status: 'pending', status_reason: 'AwaitingFinalize' });
    expect(attached.managed_dns).toBeUndefined();
    const [cname, txt] = attached.dns_records ?? [];
    expect(cname).toEqual({ record_type: 'CNAME', name: host, value: RUNTIME_TARGET });
    expect(txt?.record_type).toBe('TXT');
    expect(txt?.name).toBe(`_cloudwright.${host}`);
    expect(txt?.value).toMatch(/^cloudwright-verification=[0-9a-f]{32}$/);
    expect(attached.dns_records).toHaveLength(2);
    // The runtime attach: the binding object exists, owned by the app.
    const object = await hostnameObject(host);
    expect(object?.spec).toMatchObject({ hostname: host, appRef: { name: 'web' }, dnsMode: 'external_records' });
    expect(object?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'RuntimeApp', name: 'web' });

    const again = await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'external_records' });
    expect(again.dns_records).toEqual(attached.dns_records);
    expect(again.created_at).toBe(attached.created_at);

    const early = await refused(409, 'POST', `/apps/web/domains/${host}/finalize`);
    expect(early).toContain(`The DNS records of ${host} are not live yet`);
    expect(early).toContain(`CNAME ${host} → ${RUNTIME_TARGET}: not published yet`);
    dns.parent.setRecord(host, 'CNAME', ['somewhere.else.example']);
    dns.parent.setRecord(txt?.name ?? '', 'TXT', [txt?.value ?? '']);
    expect(await refused(409, 'POST', `/apps/web/domains/${host}/finalize`)).toContain('the published value is somewhere.else.example');
    expect(await appHosts('web')).not.toContain(host);

    dns.parent.setRecord(host, 'CNAME', [RUNTIME_TARGET]);
    const active = await ok(200, 'POST', `/apps/web/domains/${host}/finalize`);
    expect(active).toMatchObject({ domain: host, status: 'active', status_reason: 'Active' });
    expect(await appHosts('web')).toContain(host);
    expect((await ok(200, 'POST', `/apps/web/domains/${host}/finalize`)).status).toBe('active');
    expect(await appHosts('web')).toEqual([...new Set(await appHosts('web'))]);
    const listed = (await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/web/domains')).domains;
    expect(listed.find((h) => h.domain === host)).toMatchObject({ status: 'active', dns_mode: 'external_records' });

    // Verified here: not another app of this project; another project may attach it, but not finalize it while this
    // project's verification record is published, and takes it over once it is not (the name's DNS changed hands).
    expect(await refused(409, 'POST', '/apps/api/domains', { domain: host })).toContain('already bound to another app (web)');
    const theirs = await ok<HostnameView>(200, 'POST', '/apps/api/domains', { domain: host, dns_mode: 'external_records' }, rival);
    const theirTxt = theirs.dns_records?.find((r) => r.record_type === 'TXT');
    dns.parent.setRecord(txt?.name ?? '', 'TXT', [txt?.value ?? '', theirTxt?.value ?? '']);
    expect(await refused(409, 'POST', `/apps/api/domains/${host}/finalize`, undefined, rival)).toContain('whose verification record is still published');
    expect(await appHosts('web')).toContain(host);
    dns.parent.setRecord(txt?.name ?? '', 'TXT', [theirTxt?.value ?? '']);
    expect(await ok(200, 'POST', `/apps/api/domains/${host}/finalize`, undefined, rival)).toMatchObject({ status: 'active' });
    await vi.waitFor(async () => expect(await appHosts('web')).not.toContain(host), { timeout: 10_000 });
    expect(await appHosts('api', rival)).toContain(host);
  });

  it('refuses to finalize a binding whose finalize git applies as false (its next sync would undo it)', async () => {
    const host = `www.${dns.domain('git')}`;
    await ok(200, 'POST', '/apps/web/domains', { domain: host });
    await objectClient<AppHostname>(platform.conn, APP_HOSTNAMES).apply(
      { metadata: { name: host, namespace: me.project }, spec: { hostname: host, appRef: { name: 'web' }, dnsMode: 'external_records', finalize: false } } as AppHostname,
      { fieldManager: 'kustomize-controller', force: true },
    );
    expect(await refused(409, 'POST', `/apps/web/domains/${host}/finalize`)).toContain(`AppHostname ${host}: spec.finalize is applied by kustomize-controller`);
    expect((await hostnameObject(host))?.spec.finalize).toBe(false);
  });

  it('attaches at most 32 host names to an app, in any state (409 past that), so deleting the app stays bounded', async () => {
    expect((await call('POST', '/apps', { name: 'many' })).statusCode).toBe(201);
    const names = Array.from({ length: 32 }, (_, i) => `h${i}.limit.example.net`);
    for (const domain of names) await ok(200, 'POST', '/apps/many/domains', { domain });
    expect(await refused(409, 'POST', '/apps/many/domains', { domain: 'one-more.limit.example.net' })).toBe(
      'App many has 32 host names attached, the most an app may have (it is served on at most 32).',
    );
    // Attaching one it has again is no new binding: answered as before.
    await ok(200, 'POST', '/apps/many/domains', { domain: names[0] });
    expect((await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/many/domains')).domains).toHaveLength(32);
    expect((await call('DELETE', '/apps/many')).statusCode).toBe(200);
  });

  it('takes an internationalized hostname in its ASCII form', async () => {
    const host = `www.${dns.domain('bücher')}`;
    const attached = await ok(200, 'POST', '/apps/web/domains', { domain: host });
    expect(attached.domain).toBe(domainToASCII(host));
    expect(attached.dns_records?.[0]).toMatchObject({ record_type: 'CNAME', name: domainToASCII(host) });
  });

  it('asks for A records at a registrable domain (a CNAME cannot be published there), and refuses one it has no addresses for', async () => {
    const apex = dns.domain('apex');
    const attached = await ok(200, 'POST', '/apps/web/domains', { domain: apex });
    expect(attached.dns_records?.filter((r) => r.record_type !== 'TXT')).toEqual([{ record_type: 'A', name: apex, value: RUNTIME_IPV4 }]);
    const settings = dns.settings as { runtimeTarget: RuntimeTarget };
    const target = settings.runtimeTarget;
    settings.runtimeTarget = { hostname: target.hostname };
    try {
      const other = dns.domain('apex');
      expect(await refused(409, 'POST', '/apps/web/domains', { domain: other })).toContain('no runtime addresses configured');
      expect(await hostnameObject(other)).toBeUndefined();
    } finally {
      settings.runtimeTarget = target;
    }
  });

  it('refuses names that are not host names, and names under the runtime base domain (400)', async () => {
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: 'bad_host!.test' })).toContain('is not a host name');
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: `shop.${BASE_DOMAIN}` })).toContain(`under the runtime's domain ${BASE_DOMAIN}`);
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: 'www.example.test', dns_mode: 'other' })).not.toBe('');
  });
});

describe('attach in managed_project_domain mode', () => {
  it('needs a domain of the project holding the hostname (400), managed (409), without a manual record at the name (409)', async () => {
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: `www.${dns.domain('none')}`, dns_mode: 'managed_project_domain' })).toContain('add the domain first');
    const pending = await addDomain(false);
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: `www.${pending.domain}`, dns_mode: 'managed_project_domain' })).toContain(`${pending.domain} is pending_delegation`);
    // Another project's managed domain does not count.
    const theirs = await addDomain();
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: `www.${theirs.domain}`, dns_mode: 'managed_project_domain' }, rival)).toContain('has none');

    const { domain } = await addDomain();
    const manual = (await ok<{ record: RecordView }>(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.7' })).record;
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: `www.${domain}`, dns_mode: 'managed_project_domain' })).toContain(`(${manual.record_id})`);
    expect(await hostnameObject(`www.${domain}`)).toBeUndefined();
  });

  it('answers 202 failed when writing the records fails after the runtime attach, then converges to 200 applied without duplicates', async () => {
    const { domain, zoneId } = await addDomain();
    const host = `shop.${domain}`;
    // Three failures in a row: the controller retries with backoff (0.5, 1, 2 s), so the failure is still the
    // state when the attach is answered, and it then heals by itself.
    for (let i = 0; i < 3; i++) dns.provider.failNext('applyChanges');
    const failed = await call('POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    expect(failed.statusCode, failed.body).toBe(202);
    expect(failed.json()).toMatchObject({
      domain: host,
      dns_mode: 'managed_project_domain',
      status: 'pending',
      status_reason: 'DnsNotApplied',
      managed_dns: { project_domain: domain, status: 'failed' },
    });
    expect(failed.json().managed_dns.records).toBeUndefined();
    expect(failed.json().status_message).toContain('Repeat the request to retry');
    expect(failed.json().dns_records).toBeUndefined();
    // The runtime attach stands, with the failure in its conditions.
    const binding = await hostnameObject(host);
    expect(binding?.status?.conditions?.find((c) => c.type === 'RuntimeAttached')?.status).toBe('True');
    expect(await appHosts('web')).not.toContain(host);
    // The ProjectDomain controller retries the write on its own, and the binding follows.
    await vi.waitFor(async () => expect((await hostnameObject(host))?.status?.conditions?.find((c) => c.type === 'DnsReady')?.status).toBe('True'), { timeout: 15_000 });

    const applied = await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    expect(applied).toMatchObject({ status: 'pending', status_reason: 'AwaitingFinalize', created_at: failed.json().created_at });
    expect(applied.managed_dns).toEqual({ project_domain: domain, status: 'applied', records: [{ record_type: 'CNAME', name: host, value: RUNTIME_TARGET }] });
    const before = await hostnameObject(host);
    expect(await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' })).toEqual(applied);
    // The binding is left as it is: nothing rewritten by the repeat.
    expect((await hostnameObject(host))?.metadata?.resourceVersion).toBe(before?.metadata?.resourceVersion);
    const owned = await records(domain);
    expect(owned).toHaveLength(1);
    expect(owned[0]).toMatchObject({ name: 'shop', type: 'CNAME', status: 'applied', owner: { owner_resource_id: 'web' } });
    expect(await zone(zoneId, domain)).toEqual([`${host} CNAME 300 ${RUNTIME_TARGET}`]);

    // Another mode or another app for the same hostname is refused; the binding stays.
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: host })).toContain('already attached to this app in managed_project_domain mode');
    expect(await refused(409, 'POST', '/apps/api/domains', { domain: host, dns_mode: 'managed_project_domain' })).toContain('already attached to app web');

    const active = await ok(200, 'POST', `/apps/web/domains/${host}/finalize`);
    expect(active).toMatchObject({ status: 'active', managed_dns: { status: 'applied' } });
    expect(await appHosts('web')).toContain(host);
  });

  it('keeps a finalized hostname bound through deploys whose hostnames option replaces or removes the others', async () => {
    const { domain } = await addDomain();
    const host = `keep.${domain}`;
    await ok(200, 'POST', '/apps/api/domains', { domain: host, dns_mode: 'managed_project_domain' });
    await ok(200, 'POST', `/apps/api/domains/${host}/finalize`);
    const deploy = (query: string) =>
      platform.app.inject({
        method: 'POST',
        url: `/v1/projects/${me.project}/apps/api/deployments${query}`,
        headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/octet-stream' },
        payload: artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("ok"); } };' }),
      });
    const replaced = await deploy(`?hostnames=${encodeURIComponent(`other.${domain}`)}`);
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(await appHosts('api')).toEqual([`other.${domain}`, host]);
    expect((await deploy('?hostnames=')).statusCode).toBe(200);
    expect(await appHosts('api')).toEqual([host]);
    expect((await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/api/domains')).domains.find((h) => h.domain === host)?.status).toBe('active');
  });

  it('does not finalize in a domain that no longer delegates to its zone (409), until it does again', async () => {
    const { domain } = await addDomain();
    const host = `lost.${domain}`;
    await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    dns.parent.undelegate(domain);
    expect((await ok<{ domain: { status: string } }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain.status).toBe('pending_delegation');
    expect(await refused(409, 'POST', `/apps/web/domains/${host}/finalize`)).toContain(`${domain} is pending_delegation: it no longer delegates to its zone`);
    expect(await appHosts('web')).not.toContain(host);
    const zoneNameservers = (await ok<{ domain: { nameservers: string[] } }>(200, 'GET', `/domains/${domain}`)).domain.nameservers;
    dns.parent.delegate(domain, zoneNameservers);
    expect((await ok<{ domain: { status: string } }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain.status).toBe('managed');
    expect(await ok(200, 'POST', `/apps/web/domains/${host}/finalize`)).toMatchObject({ status: 'active' });
  });

  it('refuses to serve an app on more than 32 host names (409), by finalize or by a deploy, instead of a refusal from the apiserver', async () => {
    const { domain } = await addDomain();
    const apps = objectClient<RuntimeApp>(platform.conn, RUNTIME_APPS);
    const full = Array.from({ length: 32 }, (_, i) => `h${i}.${me.project}.${BASE_DOMAIN}`);
    const saved = (await apps.get(me.project, 'api'))?.spec.hostnames;
    // Merge patches: the RuntimeApp controller writes the app's status meanwhile, so a replace could conflict.
    await apps.patch(me.project, 'api', { spec: { hostnames: full } });
    try {
      const host = `many.${domain}`;
      await ok(200, 'POST', '/apps/api/domains', { domain: host, dns_mode: 'managed_project_domain' });
      expect(await refused(409, 'POST', `/apps/api/domains/${host}/finalize`)).toMatch(/served on (32|33) host names besides its default host, the most it can have/); // 33: an earlier test's binding of api is active
    } finally {
      await apps.patch(me.project, 'api', { spec: { hostnames: saved ?? null } });
    }
    const attached = `one.${domain}`;
    await ok(200, 'POST', '/apps/api/domains', { domain: attached, dns_mode: 'managed_project_domain' });
    await ok(200, 'POST', `/apps/api/domains/${attached}/finalize`);
    const deploy = await platform.app.inject({
      method: 'POST',
      url: `/v1/projects/${me.project}/apps/api/deployments?hostnames=${full.join(',')}`,
      headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/octet-stream' },
      payload: artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("ok"); } };' }),
    });
    expect(deploy.statusCode, deploy.body).toBe(409);
    expect(deploy.json().detail).toMatch(/with its \d+ attached custom domains the app would have \d+ host names, more than the 32 an app can have/);
  });

  it('writes a name under a closer domain still pending into the managed domain around it, which answers for it', async () => {
    const { domain, zoneId } = await addDomain();
    expect((await call('POST', '/domains', { domain: `shop.${domain}` })).statusCode).toBe(201); // pending, not delegated
    const host = `www.shop.${domain}`;
    const applied = await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    expect(applied.managed_dns).toMatchObject({ project_domain: domain, status: 'applied' });
    expect(await zone(zoneId, domain)).toEqual([`${host} CNAME 300 ${RUNTIME_TARGET}`]);
    expect(await ok(200, 'POST', `/apps/web/domains/${host}/finalize`)).toMatchObject({ status: 'active' });
  });

  it('writes A records at the apex (a CNAME cannot be there)', async () => {
    const { domain, zoneId } = await addDomain();
    const applied = await ok(200, 'POST', '/apps/api/domains', { domain, dns_mode: 'managed_project_domain' });
    expect(applied.managed_dns).toEqual({ project_domain: domain, status: 'applied', records: [{ record_type: 'A', name: domain, value: RUNTIME_IPV4 }] });
    expect(await zone(zoneId, domain)).toEqual([`${domain} A 300 ${RUNTIME_IPV4}`]);
  });

  it('refuses an apex whose AAAA name a record written by hand holds, and an apex this platform has no addresses for, making no binding', async () => {
    const settings = dns.settings as { runtimeTarget: RuntimeTarget };
    const target = settings.runtimeTarget;
    try {
      const { domain } = await addDomain();
      settings.runtimeTarget = { ...target, ipv6: ['2001:db8::7'] };
      const manual = (await ok<{ record: RecordView }>(201, 'POST', `/domains/${domain}/records`, { name: '@', type: 'AAAA', value: '2001:db8::99' })).record;
      expect(await refused(409, 'POST', '/apps/api/domains', { domain, dns_mode: 'managed_project_domain' })).toContain(`(${manual.record_id})`);
      expect(await hostnameObject(domain)).toBeUndefined();

      settings.runtimeTarget = { hostname: target.hostname };
      const detail = await refused(409, 'POST', '/apps/api/domains', { domain, dns_mode: 'managed_project_domain' });
      expect(detail).toContain('no runtime addresses configured (CW_RUNTIME_DNS_IPV4, CW_RUNTIME_DNS_IPV6)');
      expect(detail).toContain(`such as www.${domain}`);
      expect(await hostnameObject(domain)).toBeUndefined();
    } finally {
      settings.runtimeTarget = target;
    }
  });

  it('deleting the domain takes the platform-owned records with it', async () => {
    const { domain, zoneId } = await addDomain();
    await ok(200, 'POST', '/apps/api/domains', { domain: `www.${domain}`, dns_mode: 'managed_project_domain' });
    expect(await records(domain)).toHaveLength(1);
    expect((await ok<{ domain: { status: string } }>(200, 'DELETE', `/domains/${domain}`)).domain.status).toBe('deleted');
    expect(dns.provider.backend.zones.has(zoneId)).toBe(false);
    const finalize = await refused(409, 'POST', `/apps/api/domains/www.${domain}/finalize`);
    expect(finalize).toContain('was deleted; add it again and repeat the attach request');
  });
});

describe('detach', () => {
  it('detaches a finalized managed hostname: 204, no longer served, its records out of the zone, the name free for another project', async () => {
    const { domain, zoneId } = await addDomain();
    const host = `gone.${domain}`;
    await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    await ok(200, 'POST', `/apps/web/domains/${host}/finalize`);
    expect(await appHosts('web')).toContain(host);
    const claims = objectClient<HostnameClaim>(platform.conn, HOSTNAME_CLAIMS);
    expect((await claims.get('', host))?.spec.holder).toMatchObject({ namespace: me.project, name: host });
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: host }, rival)).toContain('verified and served by another project');

    const res = await call('DELETE', `/apps/web/domains/${host.toUpperCase()}`);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(await hostnameObject(host)).toBeUndefined();
    expect(await appHosts('web')).not.toContain(host);
    expect((await ok<{ domains: HostnameView[] }>(200, 'GET', '/apps/web/domains')).domains.map((h) => h.domain)).not.toContain(host);
    // Answered once the platform-owned records had left the zone.
    expect(await records(domain)).toEqual([]);
    expect(await zone(zoneId, domain)).toEqual([]);
    // The controller lets go of the name (as on kubectl delete): another project may verify it now.
    await vi.waitFor(async () => expect(await claims.get('', host)).toBeUndefined(), { timeout: 10_000 });
    expect((await ok(200, 'POST', '/apps/api/domains', { domain: host }, rival)).status).toBe('pending');
  });

  it('detaches an external hostname (204) and answers 404, as problem details, for one not attached to the app', async () => {
    const host = `www.${dns.domain('detach')}`;
    await ok(200, 'POST', '/apps/web/domains', { domain: host });
    expect(await refused(404, 'DELETE', `/apps/api/domains/${host}`)).toBe(`${host} is not attached to app api.`);
    await refused(404, 'DELETE', `/apps/nope/domains/${host}`);
    // Another project's binding of the same name is not this project's to detach.
    await ok(200, 'POST', '/apps/api/domains', { domain: host }, rival);
    expect((await call('DELETE', `/apps/web/domains/${host}`)).statusCode).toBe(204);
    expect(await hostnameObject(host)).toBeUndefined();
    expect(await hostnameObject(host, rival)).toBeDefined();
    expect(await refused(404, 'DELETE', `/apps/web/domains/${host}`)).toBe(`${host} is not attached to app web.`);
    await refused(400, 'DELETE', `/apps/web/domains/${'a'.repeat(254)}`);
  });
});

describe('unknown apps and hostnames', () => {
  it('answers 404', async () => {
    expect(await refused(404, 'GET', '/apps/nope/domains')).toContain('nope');
    await refused(404, 'POST', '/apps/nope/domains', { domain: 'www.example.test' });
    await refused(404, 'POST', '/apps/nope/domains/www.example.test/finalize');
    expect(await refused(404, 'POST', `/apps/web/domains/never-${dns.domain()}/finalize`)).toContain('attach it first');
  });

  it('lists nothing for an app without hostnames', async () => {
    expect(await ok(200, 'GET', '/apps/web/domains', undefined, rival)).toEqual({ domains: [] });
  });
});
