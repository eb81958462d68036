// The ProjectDomain controller's workers shared fairly between projects (review-163 F6), against the real apiserver:
// one project asks delegation checks of many domains whose parent servers never answer (each check waits out its
// timeout), and another project's new record still reaches its zone at once. With two workers shared by all, it
// waited 5 s behind 8 such domains and 30 s behind 24.
import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import { DELEGATION_CHECK_ANNOTATION, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import { decodeMessage } from '../../../src/dns/dns-wire.ts';
import { createInformer, eventWriter, objectClient, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { askDelegationCheck } from '../../../src/platform/domains/testing/delegation-check.ts';
import { testDnsSettings } from '../../testing/test-dns-settings.ts';
import { APP_HOSTNAMES, DNS_RECORDS, PROJECT_DOMAINS, PROJECT_LABEL } from '../../../src/platform/resources.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { projectDomainController } from './controller.ts';

const conn = testConnection();
const domainClient = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
const recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
const provider = new MemoryDnsProvider({ ownerId: 'cloudwright' });
let parent: ParentZoneServer;
let proxy: ReturnType<typeof createSocket>;
let blackHole = true;
let namespaces: { name: string; remove: () => Promise<void> }[];
let slow: string;
let other: string;
let informers: { domains: Informer<ProjectDomain>; records: Informer<DnsRecord>; hostnames: Informer<AppHostname> };
let controller: Controller<ProjectDomain>;

beforeAll(async () => {
  parent = await startParentZoneServer({ suffix: 'test' });
  // The slow project's parent zone (`slow.test`) never answers while `blackHole` holds; everything else is the real
  // parent-zone server.
  proxy = createSocket('udp4');
  proxy.on('message', (msg, rinfo) => {
    const name = decodeMessage(msg).questions?.[0]?.name ?? '';
    if (blackHole && name.endsWith('.slow.test')) return;
    const up = createSocket('udp4');
    up.on('message', (reply) => {
      proxy.send(reply, rinfo.port, rinfo.address);
      up.close();
    });
    up.send(msg, parent.port, '127.0.0.1');
  });
  await new Promise<void>((resolve) => proxy.bind(0, '127.0.0.1', resolve));
  namespaces = await Promise.all([testNamespace(conn, 'turns-slow'), testNamespace(conn, 'turns-other')]);
  [slow, other] = namespaces.map((n) => n.name) as [string, string];
  const labelSelector = `${PROJECT_LABEL} in (${slow},${other})`;
  informers = {
    domains: createInformer<ProjectDomain>(conn, PROJECT_DOMAINS, { labelSelector }),
    records: createInformer<DnsRecord>(conn, DNS_RECORDS, { labelSelector }),
    hostnames: createInformer<AppHostname>(conn, APP_HOSTNAMES, { labelSelector }),
  };
  const base = testDnsSettings({ provider, parentServer: `127.0.0.1:${proxy.address().port}`, runtimeTarget: { hostname: 'runtime.apps.cw-st.test' }, baseDomain: 'apps.cw-st.test' });
  // The production default per query (CW_DNS_TIMEOUT_MS).
  const settings = { ...base, delegation: { ...base.delegation, timeoutMs: 3000 } };
  controller = projectDomainController({
    kube: conn,
    ...informers,
    settings,
    events: new EventRecorder({ writer: eventWriter(conn), component: 'projectdomain-turns' }),
    registry: new Registry(),
    log: silentLogger,
  });
  for (const i of Object.values(informers)) i.start();
  await controller.start();
});

afterAll(async () => {
  blackHole = false;
  for (const n of namespaces ?? []) for (const d of (await domainClient.list(n.name)).items) await domainClient.delete(n.name, d.metadata?.name ?? '').catch(() => {});
  await waitFor(
    async () => [...(await domainClient.list(slow)).items, ...(await domainClient.list(other)).items],
    (left) => left.length === 0,
    60_000,
  ).catch(() => {});
  await controller?.stop();
  for (const i of Object.values(informers ?? {})) i.stop();
  await Promise.all((namespaces ?? []).map((n) => n.remove()));
  await parent?.stop();
  proxy?.close();
});

const apply = (namespace: string, domain: string) =>
  domainClient.create({
    apiVersion: API_VERSION,
    kind: 'ProjectDomain',
    metadata: { name: `${domain.replaceAll('.', '-')}-${randomBytes(3).toString('hex')}`, namespace, labels: { [PROJECT_LABEL]: namespace } },
    spec: { domain },
  });

async function waitFor<T>(read: () => Promise<T | undefined>, ok: (o: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const o = await read();
    if (o !== undefined && ok(o)) return o;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Seconds until a new A record of `d` is Ready (in the zone). */
async function recordSeconds(d: ProjectDomain): Promise<number> {
  const started = Date.now();
  const r = await recordClient.create({
    apiVersion: API_VERSION,
    kind: 'DnsRecord',
    metadata: {
      name: `r-${randomBytes(5).toString('hex')}`,
      namespace: other,
      labels: { [PROJECT_LABEL]: other },
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'ProjectDomain', name: d.metadata?.name ?? '', uid: d.metadata?.uid ?? '' }],
    },
    spec: { domainRef: { name: d.metadata?.name ?? '' }, name: `w${randomBytes(3).toString('hex')}`, type: 'A', values: ['192.0.2.1'] },
  });
  await waitFor(
    () => recordClient.get(other, r.metadata?.name ?? ''),
    (o) => findCondition(o.status?.conditions, 'Ready')?.status === 'True',
  );
  return (Date.now() - started) / 1000;
}

it('writes a project’s record at once while another project’s delegation checks wait out their timeouts', { timeout: 120_000 }, async () => {
  const v = await apply(other, `v-${randomBytes(4).toString('hex')}.test`);
  const zoned = await waitFor(
    () => domainClient.get(other, v.metadata?.name ?? ''),
    (o) => !!o.status?.hostedZoneId,
  );
  parent.delegate(zoned.spec.domain, zoned.status?.nameservers ?? []);
  const managed = await askDelegationCheck(domainClient, zoned);
  expect(managed.status?.state).toBe('managed');
  const before = await recordSeconds(managed);

  const tag = randomBytes(3).toString('hex');
  const slowDomains = await Promise.all(Array.from({ length: 12 }, (_, i) => apply(slow, `a${i}-${tag}.slow.test`)));
  let asking = true;
  const ask = (async () => {
    for (let n = 0; asking; n++) {
      await Promise.all(slowDomains.map((d) => domainClient.patch(slow, d.metadata?.name ?? '', { metadata: { annotations: { [DELEGATION_CHECK_ANNOTATION]: `x${n}` } } }).catch(() => {})));
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  // Checks under way: the slow project's domains are getting their zones, each pass then waiting on its check.
  await waitFor(
    async () => (await domainClient.list(slow)).items,
    (items) => items.filter((d) => d.status?.hostedZoneId).length >= 2,
  );
  const during = await recordSeconds(managed);
  asking = false;
  await ask;
  expect(before).toBeLessThan(2);
  expect(during, `the record waited ${during} s behind the other project's checks`).toBeLessThan(2);
});
