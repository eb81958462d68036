import { describe, expect, inject, it } from 'vitest';
import { CUSTOM_RESOURCE_DEFINITIONS, customResource, loadKubeConnection, objectClient, statusCodeOf, type KubeObject } from '../src/kube/index.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { allKinds } from '../src/apis/v1alpha1/index.ts';
import { createTestNamespace, NAMESPACES } from './harness/namespace.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const crds = objectClient<KubeObject & { spec?: { names?: { kind?: string } } }>(conn, CUSTOM_RESOURCE_DEFINITIONS);
const runtimeApps = objectClient<RuntimeApp>(conn, customResource('RuntimeApp', 'runtimeapps'));

describe('CRDs on a real kube-apiserver', () => {
  it('are installed for every kind', async () => {
    const installed = (await crds.list('')).items.map((crd) => crd.spec?.names?.kind);
    for (const kind of allKinds) expect(installed).toContain(kind.kind);
  });

  it('round-trip a RuntimeApp, with status written only through the status subresource', async () => {
    const namespace = await createTestNamespace(conn);
    const created = await runtimeApps.create({
      metadata: { name: 'hello', namespace },
      spec: { displayName: 'hello', environment: { GREETING: 'hi' }, maxConcurrentRequests: 50 },
    });
    expect(created.metadata?.generation).toBe(1);

    const status = {
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'False' as const, reason: 'NoBuild', message: 'No build deployed yet.', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }],
    };
    // Status sent with the main resource is ignored: only the subresource writes it.
    await runtimeApps.replace({ ...created, status });
    expect((await runtimeApps.get(namespace, 'hello'))?.status).toBeUndefined();

    await runtimeApps.patchStatus(namespace, 'hello', { status });
    const read = await runtimeApps.get(namespace, 'hello');
    expect(read?.status).toEqual(status);
    expect(read?.spec).toEqual(created.spec);
    expect(read?.metadata?.generation).toBe(1);

    await objectClient(conn, NAMESPACES).delete('', namespace);
  });

  it('reject a spec the schema forbids, naming the field', async () => {
    const namespace = await createTestNamespace(conn);
    const err = await runtimeApps.create({ metadata: { name: 'bad', namespace }, spec: { displayName: 'bad', maxConcurrentRequests: 0 } }).catch((e: unknown) => e);
    expect(statusCodeOf(err)).toBe(422);
    expect(String((err as Error).message)).toContain('maxConcurrentRequests');
    expect(await runtimeApps.get(namespace, 'bad')).toBeUndefined();
    await objectClient(conn, NAMESPACES).delete('', namespace);
  });

  it('reject a record set or a Build larger in all than the API allows, however large each item may be', async () => {
    const namespace = await createTestNamespace(conn);
    const records = objectClient<KubeObject & { spec: object }>(conn, customResource('DnsRecord', 'dnsrecords'));
    const record = (count: number) => ({ domainRef: { name: 'shop' }, name: 'big', type: 'TXT', values: Array.from({ length: count }, (_, i) => `${i}`.padEnd(4000, 'x')) });
    const large = await records.create({ metadata: { name: 'large', namespace }, spec: record(9) }).catch((e: unknown) => e);
    expect(statusCodeOf(large)).toBe(422);
    expect(String((large as Error).message)).toContain('the values of a record set come to at most 32000 characters');
    await records.create({ metadata: { name: 'fits', namespace }, spec: record(8) });
    const builds = objectClient<KubeObject & { spec: object }>(conn, customResource('Build', 'builds'));
    const files = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `${String(i).padStart(4, '0')}_m.sql`, checksum: 'a'.repeat(64), sql: 'x'.repeat(200 * 1024) }));
    const spec = (count: number) => ({ app: 'web', buildId: 'b-1', digest: 'a'.repeat(64), size: 1, objectKey: 'k', migrations: { database: 'notes', files: files(count) } });
    const heavy = await builds.create({ metadata: { name: 'heavy', namespace }, spec: spec(3) }).catch((e: unknown) => e);
    expect(statusCodeOf(heavy)).toBe(422);
    expect(String((heavy as Error).message)).toContain('the migration files come to at most 524288 characters together');
    await builds.create({ metadata: { name: 'light', namespace }, spec: spec(2) });
    await objectClient(conn, NAMESPACES).delete('', namespace);
  });

  it('reject an AppHostname or a claim not named after its name (the controllers find them by it)', async () => {
    const namespace = await createTestNamespace(conn);
    const hostnames = objectClient<KubeObject & { spec: object }>(conn, customResource('AppHostname', 'apphostnames'));
    const wrong = await hostnames.create({ metadata: { name: 'other.example.test', namespace }, spec: { appRef: { name: 'web' }, hostname: 'www.example.test' } }).catch((e: unknown) => e);
    expect(statusCodeOf(wrong)).toBe(422);
    expect(String((wrong as Error).message)).toContain('an AppHostname is named after its hostname');
    await hostnames.create({ metadata: { name: 'www.example.test', namespace }, spec: { appRef: { name: 'web' }, hostname: 'www.example.test' } });
    const claims = objectClient<KubeObject & { spec: object }>(conn, customResource('HostnameClaim', 'hostnameclaims', false));
    const holder = { kind: 'AppHostname', namespace, name: 'www.example.test', uid: 'u-1' };
    const claim = await claims.create({ metadata: { name: 'a.example.test' }, spec: { name: 'b.example.test', holder } }).catch((e: unknown) => e);
    expect(statusCodeOf(claim)).toBe(422);
    expect(String((claim as Error).message)).toContain('a claim is named after the name it holds');
    await objectClient(conn, NAMESPACES).delete('', namespace);
  });
});
