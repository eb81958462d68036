// The DNS-record routes on the real apiserver: the zone in memory (MemoryDnsProvider), the domain made
// `managed` through the real delegation check against a parent-zone server for `test.`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsRecord } from '../../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import { objectClient } from '../../src/kube/index.ts';
import { DNS_RECORDS, PROJECT_DOMAINS } from '../../src/platform/resources.ts';
import type { RecordView } from '../../src/platform/domains/views.ts';
import { BASE_DOMAIN, memoryDns, RUNTIME_TARGET, type MemoryDns } from './testing/memory-dns.ts';
import { zoneContents } from '../../operator/testing/test-dns-settings.ts';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';
import { MAX_RECORDS_PER_DOMAIN } from '../../src/platform/domains/dns-records.ts';

let dns: MemoryDns;
let platform: PlatformApp;
let project: string;
let token: string;

beforeAll(async () => {
  dns = await memoryDns();
  platform = await platformApp({ dns: dns.settings, baseDomain: BASE_DOMAIN });
  const owner = await platform.createUser();
  project = await platform.createProject(owner, { namespace: true });
  token = await platform.tokenFor(owner, ['domain:write', 'apps:write']);
});
afterAll(async () => {
  await platform?.close();
  await dns?.stop();
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, path: string, payload?: object) =>
  platform.app.inject({ method, url: `/v1/projects/${project}${path}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

async function ok<T = RecordView>(status: number, method: Method, path: string, payload?: object): Promise<T> {
  const res = await call(method, path, payload);
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  return (body.record ?? body) as T;
}

async function refused(status: number, method: Method, path: string, payload?: object): Promise<string> {
  const res = await call(method, path, payload);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toContain('application/problem+json');
  return res.json().detail;
}

/** A new project domain; `managed` unless told otherwise. Answers its name and zone id. */
async function addDomain(managed = true): Promise<{ domain: string; zoneId: string; nameservers: string[] }> {
  const domain = dns.domain('rec');
  const added = (await ok<{ domain: { hosted_zone_id: string; nameservers: string[] } }>(201, 'POST', '/domains', { domain })).domain;
  if (managed) {
    dns.parent.delegate(domain, added.nameservers);
    const checked = (await ok<{ domain: { status: string } }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain;
    expect(checked.status).toBe('managed');
  }
  return { domain, zoneId: added.hosted_zone_id, nameservers: added.nameservers };
}

const zone = (zoneId: string, domain: string) => zoneContents(dns.provider, zoneId, domain);

const list = async (domain: string) => (await ok<{ records: RecordView[] }>(200, 'GET', `/domains/${domain}/records`)).records;

describe('records while the domain is pending_delegation', () => {
  it('refuses create and update with 409 saying why and what to do; delete still works', async () => {
    const { domain, zoneId, nameservers } = await addDomain(false);
    const detail = await refused(409, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    expect(detail).toContain(`Records cannot be created while ${domain} is pending_delegation: nobody would resolve them.`);
    expect(detail).toContain(`at your registrar to ${nameservers.join(', ')}`);
    expect(detail).toContain(`POST …/domains/${domain}/delegation-check`);
    expect(detail).toContain('Records can still be deleted.');
    expect(await list(domain)).toEqual([]);

    // A record written while managed, then the delegation goes.
    dns.parent.delegate(domain, nameservers);
    await ok(200, 'POST', `/domains/${domain}/delegation-check`);
    const www = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    dns.parent.undelegate(domain);
    expect((await ok<{ domain: { status: string } }>(200, 'POST', `/domains/${domain}/delegation-check`)).domain.status).toBe('pending_delegation');
    expect(await refused(409, 'PUT', `/domains/${domain}/records/${www.record_id}`, { ttl: 600 })).toContain(`Records cannot be updated while ${domain} is pending_delegation`);
    expect((await list(domain))[0]).toMatchObject({ record_id: www.record_id, ttl: 300 });

    const gone = await ok(200, 'DELETE', `/domains/${domain}/records/${www.record_id}`);
    expect(gone).toMatchObject({ record_id: www.record_id, name: 'www', type: 'A', values: ['192.0.2.1'] });
    expect(await list(domain)).toEqual([]);
    expect(await zone(zoneId, domain)).toEqual([]);
  });
});

describe('record validation', () => {
  let domain: string;
  beforeAll(async () => void ({ domain } = await addDomain()));

  it.each([
    [{ name: 'www', type: 'A', value: '999.1.1.1' }, 'values[0]'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1', '192.0.2.1'] }, 'values[1] repeats values[0]'],
    [{ name: 'www', type: 'AAAA', value: '192.0.2.1' }, 'values[0]'],
    [{ name: 'www', type: 'CNAME', values: ['a.example.net', 'b.example.net'] }, 'a CNAME record has exactly one value'],
    [{ name: 'www', type: 'CNAME', value: '192.0.2.1' }, 'values[0]'],
    [{ name: '@', type: 'CNAME', value: 'elsewhere.example' }, 'cannot be at the apex'],
    [{ name: '@', type: 'NS', value: 'ns1.example.net' }, 'belong to the hosted zone'],
    [{ name: '*.sub', type: 'NS', value: 'ns1.example.net' }, 'cannot have a wildcard name'],
    [{ name: '@', type: 'MX', value: 'mail.example.net' }, 'values[0]'],
    [{ name: 'sip', type: 'SRV', value: '10 5 5060 sip.example.net' }, 'must start with _service._proto'],
    [{ name: '_sip._tcp', type: 'SRV', value: '10 5 70000 sip.example.net' }, 'values[0]'],
    [{ name: '@', type: 'CAA', value: '0 pizza "letsencrypt.org"' }, 'values[0]'],
    [{ name: 'txt', type: 'TXT', value: 'héllo' }, 'values[0]'],
    [{ name: 'www', type: 'SPF', value: 'v=spf1 -all' }, 'type "SPF" is not supported'],
    [{ name: 'www.elsewhere.example.', type: 'A', value: '192.0.2.1' }, 'is not inside'],
    [{ name: 'a.*.b', type: 'A', value: '192.0.2.1' }, 'may only be the first label'],
    [{ name: '_cw-a.www', type: 'TXT', value: 'x' }, 'reserved'],
    [{ type: 'A', value: '192.0.2.1' }, 'name and type are required'],
    [{ name: 'www', value: '192.0.2.1' }, 'name and type are required'],
    [{ name: 'www', type: 'A', value: '192.0.2.1', values: ['192.0.2.2'] }, 'either value or values'],
    [{ name: 'www', type: 'A' }, 'at least one value is required'],
  ])('refuses %j with 400 naming the problem, and writes nothing', async (body, reason) => {
    expect(await refused(400, 'POST', `/domains/${domain}/records`, body)).toContain(reason);
    expect(await list(domain)).toEqual([]);
  });

  it.each([[{ ttl: 59 }], [{ ttl: 86_401 }], [{ ttl: 300.5 }], [{ values: [] }], [{ extra: 1 }], [{ type: 'A1' }]])('refuses the body %j (schema)', async (extra) => {
    const detail = await refused(400, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1', ...extra });
    expect(detail).toMatch(new RegExp(Object.keys(extra)[0] ?? ''));
    expect(await list(domain)).toEqual([]);
  });
});

describe('records on a managed domain', () => {
  it('stores values in canonical form, writes them to the zone, and lists them sorted', async () => {
    const { domain, zoneId } = await addDomain();
    const created = [
      await ok(201, 'POST', `/domains/${domain}/records`, { name: 'V6', type: 'aaaa', value: '2001:DB8:0:0::1' }),
      await ok(201, 'POST', `/domains/${domain}/records`, { name: domain, type: 'MX', values: ['10 Mail.Example.NET.', '0 .'], ttl: 3600 }),
      await ok(201, 'POST', `/domains/${domain}/records`, { name: '_sip._tcp', type: 'SRV', value: '10 5 5060 SIP.example.net.' }),
      await ok(201, 'POST', `/domains/${domain}/records`, { name: '@', type: 'CAA', value: '0 issue "letsencrypt.org"' }),
      await ok(201, 'POST', `/domains/${domain}/records`, { name: `_verify.${domain}.`, type: 'TXT', value: '"hello world"' }),
      await ok(201, 'POST', `/domains/${domain}/records`, { name: 'blog', type: 'CNAME', value: 'Host.Example.NET.' }),
    ];
    expect(created[0]).toMatchObject({ name: 'v6', fqdn: `v6.${domain}`, type: 'AAAA', values: ['2001:db8::1'], ttl: 300, status: 'applied', status_reason: 'Applied' });
    expect(created[0]?.record_id).toMatch(/^r-[0-9a-f]{10}$/);
    expect(created[0]?.owner).toBeUndefined();
    expect(created[1]).toMatchObject({ name: '@', fqdn: domain, type: 'MX', values: ['10 mail.example.net', '0 .'], ttl: 3600 });
    expect(created[2]).toMatchObject({ name: '_sip._tcp', values: ['10 5 5060 sip.example.net'] });
    expect(created[3]?.values).toEqual(['0 issue "letsencrypt.org"']);
    expect(created[4]).toMatchObject({ name: '_verify', values: ['hello world'] });
    expect(created[5]?.values).toEqual(['host.example.net']);
    // Sorted by name, then type.
    const byName = [`${domain} CAA`, `${domain} MX`, `_sip._tcp.${domain} SRV`, `_verify.${domain} TXT`, `blog.${domain} CNAME`, `v6.${domain} AAAA`].map((l) => l.split(' '));
    byName.sort(([n1 = '', t1 = ''], [n2 = '', t2 = '']) => n1.localeCompare(n2) || t1.localeCompare(t2));
    expect((await list(domain)).map((r) => [r.fqdn, r.type])).toEqual(byName);
    expect(await zone(zoneId, domain)).toEqual(
      [
        `${domain} CAA 300 0 issue "letsencrypt.org"`,
        `${domain} MX 3600 10 mail.example.net,0 .`,
        `_sip._tcp.${domain} SRV 300 10 5 5060 sip.example.net`,
        `_verify.${domain} TXT 300 hello world`,
        `blog.${domain} CNAME 300 host.example.net`,
        `v6.${domain} AAAA 300 2001:db8::1`,
      ].sort(),
    );
  });

  it('refuses a second record set of a name and type, and anything beside a CNAME, naming the record in the way (409)', async () => {
    const { domain } = await addDomain();
    const www = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    const same = await refused(409, 'POST', `/domains/${domain}/records`, { name: 'WWW', type: 'A', value: '192.0.2.2' });
    expect(same).toContain(`an A record (${www.record_id}) already exists at www`);
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'CNAME', value: 'x.example.net' })).toContain(
      `a CNAME record must be the only record at its name, and www already has an A record (${www.record_id})`,
    );
    await ok(201, 'POST', `/domains/${domain}/records`, { name: 'alias', type: 'CNAME', value: 'x.example.net' });
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: 'alias', type: 'TXT', value: 'x' })).toContain('a CNAME record must be the only record');
    expect(await list(domain)).toHaveLength(2);
  });

  it('lets a domain hold a bounded number of records (409 past that), counting every record of the domain', async () => {
    expect(MAX_RECORDS_PER_DOMAIN).toBe(1000);
    const small = await platformApp({ dns: dns.settings, baseDomain: BASE_DOMAIN, maxRecordsPerDomain: 3 });
    try {
      const owner = await small.createUser();
      const as = { project: await small.createProject(owner, { namespace: true }), token: await small.tokenFor(owner, ['domain:write']) };
      const post = (path: string, payload: object) => small.app.inject({ method: 'POST', url: `/v1/projects/${as.project}${path}`, headers: { authorization: `Bearer ${as.token}` }, payload });
      const domain = dns.domain('few');
      const added = await post('/domains', { domain });
      expect(added.statusCode, added.body).toBe(201);
      dns.parent.delegate(domain, added.json().domain.nameservers);
      expect((await post(`/domains/${domain}/delegation-check`, {})).json().domain.status).toBe('managed');
      for (const name of ['a', 'b', 'c']) expect((await post(`/domains/${domain}/records`, { name, type: 'TXT', value: name })).statusCode).toBe(201);
      const over = await post(`/domains/${domain}/records`, { name: 'd', type: 'TXT', value: 'd' });
      expect(over.statusCode).toBe(409);
      expect(over.json().detail).toBe(`${domain} has 3 records, the most a domain may have; delete one first.`);
    } finally {
      await small.close();
    }
  });

  it('answers one of two concurrent colliding writes 201 and the other 409, leaving one record', async () => {
    const { domain, zoneId } = await addDomain();
    const post = (body: object) => call('POST', `/domains/${domain}/records`, body);
    const same = await Promise.all([post({ name: 'www', type: 'A', value: '192.0.2.1' }), post({ name: 'www', type: 'A', value: '192.0.2.2' })]);
    expect(same.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const cname = await Promise.all([post({ name: 'alias', type: 'CNAME', value: 'x.example.net' }), post({ name: 'alias', type: 'TXT', value: 'x' })]);
    expect(cname.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const kept = (await list(domain)).map((r) => [r.name, r.type, r.status]);
    expect(kept).toHaveLength(2);
    expect(kept.every(([, , status]) => status === 'applied')).toBe(true);
    expect(await zone(zoneId, domain)).toHaveLength(2);
  });

  it('PUT: omitted name, type and ttl keep the stored ones; supplied values replace the stored ones', async () => {
    const { domain, zoneId } = await addDomain();
    const api = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'api', type: 'A', values: ['192.0.2.1', '192.0.2.2'], ttl: 600 });
    const path = `/domains/${domain}/records/${api.record_id}`;

    const values = await ok(200, 'PUT', path, { values: ['192.0.2.9'] });
    expect(values).toMatchObject({ record_id: api.record_id, name: 'api', type: 'A', ttl: 600, values: ['192.0.2.9'], status: 'applied' });
    const ttl = await ok(200, 'PUT', path, { ttl: 120 });
    expect(ttl).toMatchObject({ name: 'api', type: 'A', ttl: 120, values: ['192.0.2.9'] });
    const empty = await ok(200, 'PUT', path, {});
    expect(empty).toMatchObject({ name: 'api', type: 'A', ttl: 120, values: ['192.0.2.9'] });
    expect(await zone(zoneId, domain)).toEqual([`api.${domain} A 120 192.0.2.9`]);

    const renamed = await ok(200, 'PUT', path, { name: 'v2.api' });
    expect(renamed).toMatchObject({ record_id: api.record_id, name: 'v2.api', ttl: 120, values: ['192.0.2.9'] });
    expect(await zone(zoneId, domain)).toEqual([`v2.api.${domain} A 120 192.0.2.9`]);

    // A type change validates the kept values against the new type.
    expect(await refused(400, 'PUT', path, { type: 'AAAA' })).toContain('values[0]');
    const retyped = await ok(200, 'PUT', path, { type: 'txt', value: 'now text' });
    expect(retyped).toMatchObject({ name: 'v2.api', type: 'TXT', values: ['now text'], ttl: 120 });
    expect(await zone(zoneId, domain)).toEqual([`v2.api.${domain} TXT 120 now text`]);
    expect(await refused(400, 'PUT', path, { ttl: 30 })).toMatch(/ttl/);
    expect((await list(domain)).map((r) => r.record_id)).toEqual([api.record_id]);
  });

  it('keeps a record whose name repeats the domain at that name: in the zone, on PUT, and in the exclusivity check', async () => {
    const { domain, zoneId } = await addDomain();
    const twice = `www.${domain}.${domain}`;
    const created = await ok(201, 'POST', `/domains/${domain}/records`, { name: `${twice}.`, type: 'A', value: '192.0.2.1' });
    expect(created).toMatchObject({ name: `www.${domain}`, fqdn: twice, status: 'applied' });
    expect(await zone(zoneId, domain)).toEqual([`${twice} A 300 192.0.2.1`]);
    expect(await ok(200, 'PUT', `/domains/${domain}/records/${created.record_id}`, { ttl: 120 })).toMatchObject({ fqdn: twice, ttl: 120 });
    expect(await zone(zoneId, domain)).toEqual([`${twice} A 120 192.0.2.1`]);
    // www itself is another name: free.
    await ok(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'CNAME', value: 'x.example.net' });
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: `${twice}.`, type: 'A', value: '192.0.2.2' })).toContain(`(${created.record_id})`);
    expect(await zone(zoneId, domain)).toEqual([`www.${domain} CNAME 300 x.example.net`, `${twice} A 120 192.0.2.1`]);
  });

  it('PUT refuses to move a record onto a name another record holds (409)', async () => {
    const { domain } = await addDomain();
    const a = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'a', type: 'A', value: '192.0.2.1' });
    const b = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'b', type: 'A', value: '192.0.2.2' });
    expect(await refused(409, 'PUT', `/domains/${domain}/records/${b.record_id}`, { name: 'a' })).toContain(`(${a.record_id}) already exists at a`);
    // Its own name is not in its way.
    expect(await ok(200, 'PUT', `/domains/${domain}/records/${b.record_id}`, { name: 'b', value: '192.0.2.3' })).toMatchObject({ values: ['192.0.2.3'] });
  });

  it('deletes a record from the zone, answering it as it was; a second delete is 404', async () => {
    const { domain, zoneId } = await addDomain();
    const www = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    const gone = await ok(200, 'DELETE', `/domains/${domain}/records/${www.record_id}`);
    expect(gone).toMatchObject({ record_id: www.record_id, name: 'www', values: ['192.0.2.1'] });
    expect(await zone(zoneId, domain)).toEqual([]);
    expect((await dns.provider.listRecords(zoneId)).map((r) => r.name).filter((n) => n.startsWith('_cw-'))).toEqual([]);
    expect(await refused(404, 'DELETE', `/domains/${domain}/records/${www.record_id}`)).toContain(`has no record ${www.record_id}`);
  });

  it('refuses changing or deleting what a GitOps tool applies of a record, and deleting a domain it applies (409 naming the field and the tool)', async () => {
    const { domain } = await addDomain();
    const www = await ok(201, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    // Flux takes over the record's ttl and the domain (as after `kubectl apply` was replaced by a Kustomization).
    const records = objectClient<DnsRecord>(platform.conn, DNS_RECORDS);
    await records.apply({ metadata: { name: www.record_id, namespace: project }, spec: { ttl: 300 } } as DnsRecord, { fieldManager: 'kustomize-controller', force: true });
    const domains = objectClient<ProjectDomain>(platform.conn, PROJECT_DOMAINS);
    const domainObject = (await domains.list(project)).items.find((d) => d.spec.domain === domain)!;
    await domains.apply({ metadata: { name: domainObject.metadata?.name ?? '', namespace: project }, spec: { domain } } as ProjectDomain, { fieldManager: 'kustomize-controller', force: true });

    expect(await refused(409, 'PUT', `/domains/${domain}/records/${www.record_id}`, { ttl: 600 })).toContain('spec.ttl is applied by kustomize-controller');
    // Its values are not git's: the API still changes them.
    expect(await ok(200, 'PUT', `/domains/${domain}/records/${www.record_id}`, { values: ['192.0.2.2'] })).toMatchObject({ values: ['192.0.2.2'], ttl: 300 });
    expect(await refused(409, 'DELETE', `/domains/${domain}/records/${www.record_id}`)).toContain(`DnsRecord ${www.record_id} is applied by kustomize-controller`);
    expect(await refused(409, 'DELETE', `/domains/${domain}`)).toContain('is applied by kustomize-controller');
    expect((await domains.get(project, domainObject.metadata?.name ?? ''))?.spec.deleted).toBeUndefined();
  });

  it('answers 404 for an unknown domain or record', async () => {
    const { domain } = await addDomain();
    const unknown = dns.domain('nope');
    await refused(404, 'GET', `/domains/${unknown}/records`);
    await refused(404, 'POST', `/domains/${unknown}/records`, { name: 'www', type: 'A', value: '192.0.2.1' });
    await refused(404, 'PUT', `/domains/${unknown}/records/r-0000000000`, { ttl: 60 });
    await refused(404, 'DELETE', `/domains/${unknown}/records/r-0000000000`);
    expect(await refused(404, 'PUT', `/domains/${domain}/records/r-0000000000`, { ttl: 60 })).toContain('has no record r-0000000000');
    await refused(404, 'DELETE', `/domains/${domain}/records/r-0000000000`);
  });
});

describe('platform-owned records', () => {
  it('refuse PUT and DELETE with 409 naming the owner, and stay in the zone', async () => {
    const { domain, zoneId } = await addDomain();
    await ok(201, 'POST', '/apps', { name: 'web' });
    const host = `www.${domain}`;
    expect((await ok<{ managed_dns: { status: string } }>(200, 'POST', '/apps/web/domains', { domain: host, dns_mode: 'managed_project_domain' })).managed_dns.status).toBe('applied');
    const [owned] = await list(domain);
    expect(owned).toMatchObject({ name: 'www', type: 'CNAME', values: [RUNTIME_TARGET], owner: { kind: 'platform_app', owner_resource_type: 'runtime_app', owner_resource_id: 'web' } });
    const id = owned?.record_id ?? '';

    const put = await refused(409, 'PUT', `/domains/${domain}/records/${id}`, { value: 'elsewhere.example' });
    expect(put).toContain(`Record ${id} is owned by the platform (owner platform_app, runtime_app web)`);
    expect(put).toContain('cannot be changed by hand');
    expect(await refused(409, 'DELETE', `/domains/${domain}/records/${id}`)).toContain('cannot be deleted by hand');
    // A manual record beside it is refused, naming the app the record was written for.
    expect(await refused(409, 'POST', `/domains/${domain}/records`, { name: 'www', type: 'TXT', value: 'x' })).toContain('written by the platform for app web');
    expect(await list(domain)).toEqual([owned]);
    expect(await zone(zoneId, domain)).toEqual([`${host} CNAME 300 ${RUNTIME_TARGET}`]);
  });
});
