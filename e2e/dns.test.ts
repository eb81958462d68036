// Project domains, DNS records and app hostnames end to end through the REST API: a real cw-api and
// cw-operator on the test control plane, Route 53 from the run's moto (reached through a proxy that can
// refuse record changes), a real parent-zone DNS server for `test.` in this process whose
// delegations and records the test flips, and a cw-runtime serving what gets finalized.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DnsRecord } from '../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { DnsProviderError } from '../src/dns/provider.ts';
import { Route53Provider } from '../src/dns/route53-provider.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import type { DomainView, HostnameView, RecordView } from '../src/platform/domains/views.ts';
import { DNS_RECORDS, PROJECT_DOMAINS } from '../src/platform/resources.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { dnsTestEnv } from './harness/dns-env.ts';
import type { Service } from './harness/process.ts';
import { startRoute53Proxy, type Route53Proxy } from './harness/route53-proxy.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const route53 = new Route53Provider({
  ownerId: 'cloudwright',
  endpoint: inject('route53Endpoint'),
  credentials: { accessKeyId: 'AKIDCLOUDWRIGHTTEST', secretAccessKey: 'cloudwright-test-secret-key' },
});
const running: Service[] = [];
let api: ApiServer | undefined;
let runtime: Runtime;
let parent: ParentZoneServer;
let proxy: Route53Proxy;
let member: MemberAccount;
let rival: MemberAccount;
const RUNTIME_TARGET = `runtime.${BASE_DOMAIN}`;

beforeAll(async () => {
  [member, rival] = await Promise.all([createMemberAccount(kubeconfig, 'dns'), createMemberAccount(kubeconfig, 'dns-rival')]);
  // The operator below watches the project's namespace only, so its Project controller does not run.
  await createProjectNamespace(kubeconfig, member.project);
  parent = await startParentZoneServer({ suffix: 'test' });
  proxy = await startRoute53Proxy(inject('route53Endpoint'));
  const dns = {
    CW_DNS_PARENT_SERVER: parent.address,
    CW_DNS_RESOLVER: parent.address,
    CW_DNS_TIMEOUT_MS: '2000',
    CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
    CW_RUNTIME_DNS_IPV4: '127.0.0.1',
    CW_DNS_RECHECK_INTERVAL_SECONDS: '1',
  };
  const started = await Promise.all([
    startRuntime('cw-runtime-dns', member.project, running),
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...dnsTestEnv(proxy.endpoint), ...dns } }),
  ]);
  [runtime, api] = started;
  // The operator reaches moto through the same fault-injecting proxy, so an injected failure holds for both.
  await startOperator(member.project, running, { ...dnsTestEnv(proxy.endpoint), ...dns });
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
  await Promise.all([parent?.stop(), proxy?.stop()]);
  route53.destroy();
});

async function call<T>(method: string, path: string, body?: unknown, options: { token?: string; project?: string; contentType?: string } = {}): Promise<{ status: number; body: T }> {
  if (!api) throw new Error('cw-api is not running');
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? member.token}` };
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const res = await fetch(`${api.url}/v1/projects/${options.project ?? member.project}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function ok<T>(status: number, method: string, path: string, body?: unknown, options?: { contentType?: string }): Promise<T> {
  const res = await call<T>(method, path, body, options);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** Expects a problem-details refusal and answers its detail. */
async function refused(status: number, method: string, path: string, body?: unknown, options?: { token?: string; project?: string }): Promise<string> {
  const res = await call<{ detail: string; status: number }>(method, path, body, options);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body.status).toBe(status);
  return res.body.detail;
}

type DomainBody = DomainView;
type RecordBody = RecordView;
type HostnameBody = HostnameView;

/** The zone's record sets at moto as `name TYPE values`, without the zone's own NS/SOA and our ownership marks. */
async function zoneContents(zoneId: string, domain: string): Promise<string[]> {
  const sets = await route53.listRecords(zoneId);
  return sets
    .filter((r) => !r.name.split('.')[0]?.startsWith('_cw-') && !(r.name === domain && (r.type === 'NS' || r.type === 'SOA')))
    .map((r) => `${r.name} ${r.type} ${[...r.values].sort().join(',')}`)
    .sort();
}

/** The ProjectDomain objects of the project for `domain` (the custom resources `kubectl get projectdomains` shows). */
async function domainObjects(domain: string): Promise<ProjectDomain[]> {
  return (await objectClient<ProjectDomain>(conn, PROJECT_DOMAINS).list(member.project)).items.filter((d) => d.spec.domain === domain);
}

function condition(d: ProjectDomain | undefined, type: string): { status: string; reason: string; message: string } | undefined {
  return d?.status?.conditions?.find((c) => c.type === type);
}

/** A one-file worker answering `body`, packed by the `tar` and `zstd` CLIs. */
function workerArtifact(body: string): Buffer {
  return packWorker(`export default { fetch() { return new Response(${JSON.stringify(body)}); } };\n`);
}

describe('project domains and DNS records', () => {
  const domain = `shop-${randomBytes(3).toString('hex')}.test`;

  it('refuses names that cannot be project domains, with the reason', async () => {
    expect(await refused(400, 'POST', '/domains', { domain: 'com' })).toContain('top-level domain');
    expect(await refused(400, 'POST', '/domains', { domain: 'co.uk' })).toContain('public suffix');
    expect(await refused(400, 'POST', '/domains', { domain: '192.0.2.1' })).toContain('IP address');
    expect(await refused(400, 'POST', '/domains', { domain: 'my_shop.test' })).toContain('invalid label');
    expect(await refused(400, 'POST', '/domains', { domain: 'x.localhost' })).toContain('reserved');
  });

  it('walks add → pending → delegate → managed → records → undelegate → pending → delete → add again', { timeout: 120_000 }, async () => {
    // Add: the zone exists at once and its nameservers are answered.
    const added = (await ok<{ domain: DomainBody }>(201, 'POST', '/domains', { domain: domain.toUpperCase(), dns_mode: 'zone_delegated' })).domain;
    expect(added).toMatchObject({ domain, dns_mode: 'zone_delegated', status: 'pending_delegation' });
    expect(added.hosted_zone_id).not.toBe('');
    expect(added.nameservers.length).toBeGreaterThan(0);
    expect((await ok<{ domains: DomainBody[] }>(200, 'GET', '/domains')).domains.map((d) => d.domain)).toEqual([domain]);
    expect(await refused(409, 'POST', '/domains', { domain })).toContain(`already a domain of project ${member.project}`);
    // Pending: records are refused with the way out; the check explains what the parent zone says.
    const locked = await refused(409, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.10' });
    expect(locked).toContain('pending_delegation');
    expect(locked).toContain(added.nameservers[0]);
    const unchecked = (await ok<{ domain: DomainBody }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain;
    expect(unchecked).toMatchObject({ status: 'pending_delegation', status_reason: 'PendingDelegation' });
    expect(unchecked.status_message).toContain('lists no nameservers');
    parent.delegate(domain, ['ns1.elsewhere.example']);
    const mismatch = (await ok<{ domain: DomainBody }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain;
    expect(mismatch.status_message).toContain('ns1.elsewhere.example');

    // Delegate for real: the check moves it to managed.
    parent.delegate(domain, added.nameservers);
    const managed = (await ok<{ domain: DomainBody }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain;
    expect(managed).toMatchObject({ status: 'managed', status_reason: 'Managed', hosted_zone_id: added.hosted_zone_id });
    // Delegated, another project cannot take it (until then its add would challenge it with a zone of its own).
    expect(await refused(409, 'POST', '/domains', { domain }, { token: rival.token, project: rival.project })).toContain('another project');

    // Records: created, refused when invalid or conflicting, updated with defaults, listed, in the zone.
    const www = (await ok<{ record: RecordBody }>(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', values: ['192.0.2.10'] })).record;
    expect(www).toMatchObject({ name: 'www', fqdn: `www.${domain}`, type: 'A', values: ['192.0.2.10'], ttl: 300, status: 'applied' });
    await ok(201, 'POST', `/domains/${domain}/records`, { name: '@', type: 'MX', values: ['10 mail.example.net'], ttl: 3600 });
    const txt = (await ok<{ record: RecordBody }>(201, 'POST', `/domains/${domain}/records`, { name: `_verify.${domain}`, type: 'txt', value: '"hello world"' })).record;
    expect(txt).toMatchObject({ name: '_verify', type: 'TXT', values: ['hello world'] });
    expect(await refused(400, 'POST', `/domains/${domain}/records`, { name: '@', type: 'CNAME', value: 'elsewhere.example' })).toContain('apex');
    expect(await refused(400, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '999.1.1.1' })).toContain('values[0]');
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'CNAME', value: 'elsewhere.example' })).toContain('CNAME record must be the only record');
    const updated = (await ok<{ record: RecordBody }>(200, 'PUT', `/domains/${domain}/records/${www.record_id}`, { values: ['192.0.2.11', '192.0.2.12'] })).record;
    expect(updated).toMatchObject({ record_id: www.record_id, name: 'www', type: 'A', ttl: 300, values: ['192.0.2.11', '192.0.2.12'], status: 'applied' });
    const retimed = (await ok<{ record: RecordBody }>(200, 'PUT', `/domains/${domain}/records/${www.record_id}`, { ttl: 600 })).record;
    expect(retimed).toMatchObject({ ttl: 600, values: ['192.0.2.11', '192.0.2.12'] });
    const listed = (await ok<{ records: RecordBody[] }>(200, 'GET', `/domains/${domain}/records`)).records;
    expect(listed.map((r) => `${r.name} ${r.type}`)).toEqual(['_verify TXT', '@ MX', 'www A']);
    expect(await zoneContents(added.hosted_zone_id, domain)).toEqual([`_verify.${domain} TXT hello world`, `${domain} MX 10 mail.example.net`, `www.${domain} A 192.0.2.11,192.0.2.12`]);

    // kubectl tells the same story.
    const [object] = await domainObjects(domain);
    expect(object?.status).toMatchObject({ state: 'managed', hostedZoneId: added.hosted_zone_id, records: 3 });
    for (const type of ['ZoneReady', 'Delegated', 'RecordsApplied', 'Ready']) expect(condition(object, type)?.status, type).toBe('True');

    // Undelegate: the operator's periodic re-check (every second here) takes it back to pending.
    parent.undelegate(domain);
    await eventually(
      'periodic re-check → pending_delegation',
      () => ok<{ domain: DomainBody }>(200, 'GET', `/domains/${domain}`),
      (b) => b.domain.status === 'pending_delegation',
      20_000,
    );
    const [pending] = await domainObjects(domain);
    expect(condition(pending, 'Delegated')).toMatchObject({ status: 'False', reason: 'NotDelegated' });
    expect(await refused(409, 'PUT', `/domains/${domain}/records/${www.record_id}`, { ttl: 60 })).toContain('pending_delegation');
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: 'api', type: 'A', value: '192.0.2.20' })).toContain('pending_delegation');
    await ok(200, 'DELETE', `/domains/${domain}/records/${txt.record_id}`);
    await eventually(
      'TXT gone from the zone',
      () => zoneContents(added.hosted_zone_id, domain),
      (c) => !c.some((l) => l.includes('TXT')),
    );
    await refused(404, 'DELETE', `/domains/${domain}/records/${txt.record_id}`);

    // Delete: records and zone go, history stays, the domain can be added again.
    const deleted = (await ok<{ domain: DomainBody }>(200, 'DELETE', `/domains/${domain}`)).domain;
    expect(deleted).toMatchObject({ domain, status: 'deleted' });
    await refused(404, 'GET', `/domains/${domain}`);
    expect((await ok<{ domains: DomainBody[] }>(200, 'GET', '/domains')).domains).toEqual([]);
    await expect(route53.listRecords(added.hosted_zone_id)).rejects.toSatisfy((err) => err instanceof DnsProviderError && err.code === 'zone_not_found');
    const [history] = await domainObjects(domain);
    expect(history?.status).toMatchObject({ state: 'deleted' });
    expect(condition(history, 'Ready')).toMatchObject({ status: 'False', reason: 'Deleted' });
    const records = (await objectClient<DnsRecord>(conn, DNS_RECORDS).list(member.project)).items.filter((r) => r.spec.domainRef.name === history?.metadata?.name);
    expect(records).toEqual([]);

    const domains = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
    await expect(domains.patch(member.project, history?.metadata?.name ?? '', { spec: { deleted: false } })).rejects.toThrow(/cannot be restored/);

    const again = (await ok<{ domain: DomainBody }>(201, 'POST', '/domains', { domain })).domain;
    expect(again.status).toBe('pending_delegation');
    expect(again.hosted_zone_id).not.toBe(added.hosted_zone_id);
    expect(await domainObjects(domain)).toHaveLength(2);

    // kubectl delete (not the API's soft delete): the operator's finalizer deletes the zone, then the object goes.
    const current = (await domainObjects(domain)).find((d) => !d.spec.deleted);
    await domains.delete(member.project, current?.metadata?.name ?? '');
    await eventually(
      'object gone after its zone',
      () => domainObjects(domain),
      (list) => list.length === 1,
      20_000,
    );
    await expect(route53.listRecords(again.hosted_zone_id)).rejects.toSatisfy((err) => err instanceof DnsProviderError && err.code === 'zone_not_found');
  });
});

describe('app hostnames', () => {
  const domain = `web-${randomBytes(3).toString('hex')}.test`;
  const external = `shop.ext-${randomBytes(3).toString('hex')}.test`;

  it('attaches a managed hostname (202 failed, then 200 applied), an external one, finalizes both and serves them', { timeout: 150_000 }, async () => {
    await ok(201, 'POST', '/apps', { name: 'web' });
    await ok(200, 'POST', '/apps/web/deployments', workerArtifact('hello from web'), { contentType: 'application/octet-stream' });
    const added = (await ok<{ domain: DomainBody }>(201, 'POST', '/domains', { domain })).domain;

    // Managed mode needs a managed domain of the project.
    expect(await refused(400, 'POST', '/apps/web/domains', { domain: 'www.unknown-domain.test', dns_mode: 'managed_project_domain' })).toContain('add the domain first');
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: `www.${domain}`, dns_mode: 'managed_project_domain' })).toContain('pending_delegation');
    parent.delegate(domain, added.nameservers);
    expect((await ok<{ domain: DomainBody }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain.status).toBe('managed');

    // The DNS provider refuses the API's record change: the runtime attach stands, DNS is reported failed.
    const host = `www.${domain}`;
    proxy.failChanges = true;
    const failed = await call<HostnameBody>('POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    proxy.failChanges = false;
    expect(failed.status, JSON.stringify(failed.body)).toBe(202);
    expect(failed.body).toMatchObject({ domain: host, dns_mode: 'managed_project_domain', status: 'pending', managed_dns: { project_domain: domain, status: 'failed' } });
    expect(proxy.refused).toBeGreaterThan(0);

    // The identical request again converges: applied, one platform-owned record, nothing duplicated.
    const applied = await ok<HostnameBody>(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    expect(applied.managed_dns).toEqual({ project_domain: domain, status: 'applied', records: [{ record_type: 'CNAME', name: host, value: RUNTIME_TARGET }] });
    await ok(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' });
    const owned = (await ok<{ records: RecordBody[] }>(200, 'GET', `/domains/${domain}/records`)).records;
    expect(owned).toHaveLength(1);
    expect(owned[0]).toMatchObject({ name: 'www', type: 'CNAME', values: [RUNTIME_TARGET], owner: { kind: 'platform_app', owner_resource_type: 'runtime_app', owner_resource_id: 'web' } });
    expect(await zoneContents(added.hosted_zone_id, domain)).toEqual([`${host} CNAME ${RUNTIME_TARGET}`]);
    const ownedId = owned[0]?.record_id ?? '';
    expect(await refused(409, 'PUT', `/domains/${domain}/records/${ownedId}`, { value: 'elsewhere.example' })).toContain('owned by the platform');
    expect(await refused(409, 'DELETE', `/domains/${domain}/records/${ownedId}`)).toContain('owner platform_app');
    expect(await refused(409, 'POST', '/apps/web/domains', { domain: host })).toContain('managed_project_domain mode');

    const active = await ok<HostnameBody>(200, 'POST', `/apps/web/domains/${host}/finalize`);
    expect(active).toMatchObject({ domain: host, status: 'active' });
    await servedEverywhere([runtime], host, 'hello from web');

    // External: the records to publish, finalize refused until they are live, then served.
    const attached = await ok<HostnameBody>(200, 'POST', '/apps/web/domains', { domain: external });
    expect(attached.dns_records?.[0]).toEqual({ record_type: 'CNAME', name: external, value: RUNTIME_TARGET });
    const challenge = attached.dns_records?.find((r) => r.record_type === 'TXT');
    expect(challenge?.name).toBe(`_cloudwright.${external}`);
    expect(challenge?.value).toMatch(/^cloudwright-verification=[0-9a-f]{32}$/);
    const early = await refused(409, 'POST', `/apps/web/domains/${external}/finalize`);
    expect(early).toContain('not live yet');
    expect(early).toContain(`CNAME ${external}`);
    parent.setRecord(external, 'CNAME', [RUNTIME_TARGET]);
    expect(await refused(409, 'POST', `/apps/web/domains/${external}/finalize`)).toContain(`TXT _cloudwright.${external}`);
    parent.setRecord(challenge?.name ?? '', 'TXT', [challenge?.value ?? '']);
    expect((await ok<HostnameBody>(200, 'POST', `/apps/web/domains/${external}/finalize`)).status).toBe('active');
    await servedEverywhere([runtime], external, 'hello from web');
    const listed = (await ok<{ domains: HostnameBody[] }>(200, 'GET', '/apps/web/domains')).domains;
    expect(listed.map((h) => [h.domain, h.dns_mode, h.status])).toEqual(
      [
        [external, 'external_records', 'active'],
        [host, 'managed_project_domain', 'active'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // Deleting the app removes its hostnames and platform-owned records, and names the external DNS left to clean.
    const report = await ok<{ deleted: { dns_records: number; hostnames: string[] }; dns_cleanup_pending: { hostname: string }[] }>(200, 'DELETE', '/apps/web');
    expect(report.deleted.dns_records).toBe(1);
    expect(report.deleted.hostnames).toEqual([external, host].sort());
    expect(report.dns_cleanup_pending.map((p) => p.hostname)).toEqual([external]);
    await eventually(
      'platform-owned CNAME gone from the zone',
      () => zoneContents(added.hosted_zone_id, domain),
      (c) => c.length === 0,
    );
    expect((await ok<{ records: RecordBody[] }>(200, 'GET', `/domains/${domain}/records`)).records).toEqual([]);
  });
});
