// A project's whole manifest set applied the way Argo CD applies it (`kubectl apply --server-side
// --field-manager=argocd`), with no API call at all: a RuntimeApp pointing at an uploaded build, a
// ProjectDomain, a DnsRecord and a managed-mode AppHostname with its finalize intent. The real cw-operator and
// cw-runtime, Route 53 from the run's moto, a real parent-zone server for `test.` that the test delegates the
// domain at. Once everything converged, `kubectl diff` with the same field manager finds nothing: the platform
// wrote nothing but status on the objects the user owns.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { Route53Provider } from '../src/dns/route53-provider.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { APP_HOSTNAMES, DNS_RECORDS, PROJECT_DOMAINS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { delegatingDnsEnv, ROUTE53_TEST_CREDENTIALS } from './harness/dns-env.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';
import { kubectl as runKubectl } from './harness/kubectl.ts';
import { buildManifest, domainManifests, hostnameManifest, uploadBuild } from './harness/project-manifests.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const route53 = new Route53Provider({
  ownerId: 'cloudwright',
  endpoint: inject('route53Endpoint'),
  credentials: { accessKeyId: ROUTE53_TEST_CREDENTIALS.CW_ROUTE53_ACCESS_KEY_ID, secretAccessKey: ROUTE53_TEST_CREDENTIALS.CW_ROUTE53_SECRET_ACCESS_KEY },
});
const running: Service[] = [];
let parent: ParentZoneServer;
let runtime: Runtime;
let namespace: string;
let dir: string;

beforeAll(async () => {
  namespace = await createTestNamespace(conn, 'gitops');
  dir = mkdtempSync(join(inject('stateDir'), 'gitops-'));
  parent = await startParentZoneServer({ suffix: 'test' });
  const dns = delegatingDnsEnv(parent.address, BASE_DOMAIN);

  runtime = await startRuntime('cw-runtime-gitops', namespace, running);
  await startOperator(namespace, running, dns);
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop(5_000)));
  await parent?.stop();
  route53.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `kubectl` against the test control plane, as a GitOps tool runs it. */
const kubectl = (...args: string[]) => runKubectl(kubeconfig, ...args);

describe('a project declared in git', () => {
  it('converges with no API call — domain managed, records applied, the app answering on its hostname — and stays free of drift', { timeout: 120_000 }, async () => {
    const domain = `gitops-${randomBytes(4).toString('hex')}.test`;
    const host = `www.${domain}`;
    const greeting = `hello from git ${randomBytes(2).toString('hex')}`;

    // The pipeline's upload: the artifact at its key in the bucket (the Build in the manifests records it).
    const build = await uploadBuild(namespace, 'web', `export default { fetch: () => new Response(${JSON.stringify(greeting)}) };\n`);

    const manifests = join(dir, 'project.yaml');
    const app = `apiVersion: cloudwright.dev/v1alpha1
kind: RuntimeApp
metadata: { name: web, namespace: ${namespace} }
spec: { displayName: Web, activeBuildId: ${build.id} }
`;
    writeFileSync(manifests, [app, buildManifest(namespace, 'web', build), domainManifests(namespace, domain), hostnameManifest(namespace, 'web', host)].join('---\n'));
    const applied = await kubectl('apply', '--server-side', '--field-manager=argocd', '-f', manifests);
    expect(applied.code, applied.stderr).toBe(0);

    // The zone exists; the registrar (here the parent zone) is told its nameservers. No delegation check is asked for.
    const domains = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
    const zoned = await eventually(
      'the hosted zone',
      () => domains.get(namespace, 'shop'),
      (d) => (d?.status?.nameservers?.length ?? 0) > 0,
    );
    parent.delegate(domain, zoned?.status?.nameservers ?? []);
    const managed = await eventually(
      'managed, by the controller’s own re-check',
      () => domains.get(namespace, 'shop'),
      (d) => d?.status?.state === 'managed',
    );
    expect(managed?.metadata?.annotations?.['cloudwright.dev/delegation-check-requested-at']).toBeUndefined();

    // The record and the hostname's platform-owned CNAME are in the zone; the hostname activated itself.
    const zoneId = managed?.status?.hostedZoneId ?? '';
    const record = await eventually(
      'the record applied',
      () => objectClient<DnsRecord>(conn, DNS_RECORDS).get(namespace, 'api'),
      (r) => findCondition(r?.status?.conditions, 'Ready')?.status === 'True',
    );
    expect(record?.status?.fqdn).toBe(`api.${domain}`);
    const zone = await eventually(
      'the zone contents',
      async () => (await route53.listRecords(zoneId)).map((r) => `${r.name} ${r.type} ${r.values.join(',')}`),
      (names) => names.some((n) => n.startsWith(`${host} CNAME`)),
    );
    expect(zone).toContain(`api.${domain} A 192.0.2.10`);
    expect(zone).toContain(`${host} CNAME runtime.${BASE_DOMAIN}`);
    const hostname = await eventually(
      'the hostname active',
      () => objectClient<AppHostname>(conn, APP_HOSTNAMES).get(namespace, host),
      (h) => h?.status?.state === 'active',
    );
    expect(findCondition(hostname?.status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Active' });

    // Served on its default host and on the hostname, and reported Ready.
    await servedEverywhere([runtime], host, greeting);
    await servedEverywhere([runtime], `web.${namespace}.${BASE_DOMAIN}`, greeting);
    // Ready, and its status lists the hostname too: the diff below reads the object twice, and a status still
    // being written between the two reads would show as a difference that is no drift.
    await eventually(
      'the app Ready, serving the hostname',
      () => objectClient<RuntimeApp>(conn, RUNTIME_APPS).get(namespace, 'web'),
      (a) => findCondition(a?.status?.conditions, 'Ready')?.status === 'True' && (a?.status?.hosts ?? []).includes(host),
    );

    // The platform wrote status only: the same files diff clean under the same field manager.
    const diff = await kubectl('diff', '--server-side', '--field-manager=argocd', '-f', manifests);
    expect(diff.stderr).toBe('');
    expect(diff.stdout).toBe('');
    expect(diff.code).toBe(0);
    // …where a change in git would show (so the clean diff above means something).
    const changed = join(dir, 'changed.yaml');
    writeFileSync(changed, readFileSync(manifests, 'utf8').replace('ttl: 300', 'ttl: 600'));
    const drift = await kubectl('diff', '--server-side', '--field-manager=argocd', '-f', changed);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('+  ttl: 600');
  });
});
