// Who serves a host name, on a real cw-runtime: the project the claims give it to, whatever was applied first and
// however old the replica is. A tenant with kubectl rights in its own namespace writes a RuntimeApp naming
// another project's delegated domain, a name in another project's part of the base domain and a name of its own
// domain that it never delegated: none of them is served, before and after the runtime restarts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DomainClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { DOMAIN_CLAIMS, PROJECT_DOMAINS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS } from '../src/platform/resources.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, notServedAnywhere, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';
import { findCondition } from '../src/conditions/index.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const domains = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
const claims = objectClient<DomainClaim>(conn, DOMAIN_CLAIMS);
const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
const made: string[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop(5_000)));
  await Promise.all(made.map((name) => claims.delete('', name).catch(() => {})));
});

let alpha = '';
let beta = '';
const delegated = `d-${randomBytes(4).toString('hex')}.test`;
const neverDelegated = `p-${randomBytes(4).toString('hex')}.test`;

async function deploy(namespace: string, name: string, body: string, hostnames: string[]): Promise<void> {
  const buildId = `b-${name}`;
  await bucket.put(artifactKey(namespace, name, buildId), artifactFromFiles({ 'worker.js': `export default { fetch: () => new Response(${JSON.stringify(body)}) };` }));
  await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: buildId, hostnames } });
}

/** A domain of `project` with its claim, as the ProjectDomain controller leaves it (delegated or not). */
async function domainOf(project: string, domain: string, isDelegated: boolean): Promise<void> {
  const name = domain.replaceAll('.', '-');
  const created = await domains.create({ metadata: { name, namespace: project }, spec: { domain } });
  await domains.patchStatus(project, name, {
    status: { hostedZoneId: `Z-${name}`, state: isDelegated ? 'managed' : 'pending_delegation', ...(isDelegated ? { delegatedAt: new Date().toISOString() } : {}) },
  });
  await claims.create({ metadata: { name: domain }, spec: { name: domain, holder: { kind: 'ProjectDomain', namespace: project, name, uid: created.metadata?.uid ?? '' } } });
  made.push(domain);
}

beforeAll(async () => {
  [alpha, beta] = await Promise.all([createTestNamespace(conn, 'alpha'), createTestNamespace(conn, 'beta')]);
  await domainOf(alpha, delegated, true);
  await domainOf(beta, neverDelegated, false);
  // The thief's app first: being first must not win anything.
  await deploy(beta, 'thief', 'thief', [`www.${delegated}`, `promo.${alpha}.${BASE_DOMAIN}`, `www.${neverDelegated}`]);
  await deploy(alpha, 'shop', 'alpha shop', [`www.${delegated}`]);
}, 60_000);

describe('host names served by the claims', { timeout: 120_000 }, () => {
  let runtime: Runtime;
  /** The replicas running after the restart: they must follow the claim's going too. */
  let running2: Runtime[] = [];

  async function expectOnlyTheOwners(replicas: Runtime[]): Promise<void> {
    await servedEverywhere(replicas, `www.${delegated}`, 'alpha shop');
    await servedEverywhere(replicas, `thief.${beta}.${BASE_DOMAIN}`, 'thief');
    for (const host of [`promo.${alpha}.${BASE_DOMAIN}`, `www.${neverDelegated}`]) await notServedAnywhere(replicas, host);
    for (const replica of replicas) expect((await send(replica.port, `www.${delegated}`)).body).toBe('alpha shop');
  }

  it("serves a delegated domain's name for its project only, and never another project's part of the base domain or a domain never delegated", async () => {
    runtime = await startRuntime('cw-runtime-admission-1', alpha, running);
    await expectOnlyTheOwners([runtime]);
    // The operator says the same hosts in the status, decided by the same rule: the replica's report of the app,
    // served as it asks, is left out (its hosts are not the replica's to say).
    await startOperator(alpha, running);
    const shop = await eventually(
      'alpha/shop Ready with its hosts',
      () => apps.get(alpha, 'shop'),
      (a) => findCondition(a?.status?.conditions, 'Ready')?.status === 'True',
    );
    expect(shop?.status?.hosts).toEqual([`shop.${alpha}.${BASE_DOMAIN}`, `www.${delegated}`]);
    const report = await reports.get(alpha, replicaReportName(runtime.name, alpha));
    expect(report?.spec.apps.map((a) => a.app)).toEqual([]);
    expect(report?.spec.acted).toMatch(/^[0-9]+$/);
  });

  it('decides alike on a replica started later, and after a restart', async () => {
    const later = await startRuntime('cw-runtime-admission-2', alpha, running);
    await expectOnlyTheOwners([runtime, later]);
    await runtime.service.stop(5_000);
    const restarted = await startRuntime('cw-runtime-admission-3', alpha, running);
    await expectOnlyTheOwners([later, restarted]);
    running2 = [later, restarted];
  });

  it('routes the names an app asks for whatever becomes of its deploy, as the status says them', async () => {
    // A new deploy host name with a database variable whose Database does not exist: the spec cannot be deployed
    // (the build before it keeps serving), and its names follow it all the same, on every replica and in the status.
    const shop = await apps.get(alpha, 'shop');
    await apps.patch(alpha, 'shop', { spec: { hostnames: [`www.${delegated}`, `api.${delegated}`], databaseEnvironment: { DB_TOKEN: { database: 'missing' } } } });
    await servedEverywhere(running2, `api.${delegated}`, 'alpha shop');
    await eventually(
      'the status with the new name',
      () => apps.get(alpha, 'shop'),
      (a) => JSON.stringify(a?.status?.hosts) === JSON.stringify([`shop.${alpha}.${BASE_DOMAIN}`, `api.${delegated}`, `www.${delegated}`]),
    );
    // Back as it was: the name goes from both.
    await apps.patch(alpha, 'shop', { spec: { hostnames: shop?.spec.hostnames ?? [], databaseEnvironment: null } });
    await notServedAnywhere(running2, `api.${delegated}`);
    await eventually(
      'the status without the new name',
      () => apps.get(alpha, 'shop'),
      (a) => JSON.stringify(a?.status?.hosts) === JSON.stringify([`shop.${alpha}.${BASE_DOMAIN}`, `www.${delegated}`]),
    );
  });

  it('serves the name for nobody once the claim names no delegated domain of the project', async () => {
    // The domain is given up (its claim goes, as when it is deleted): nobody serves its names.
    await claims.delete('', delegated);
    // Replicas that served the name stop (the app's generation is the same: the claim alone changed), a new one never starts.
    const replicas = [...running2, await startRuntime('cw-runtime-admission-4', alpha, running)];
    await notServedAnywhere(replicas, `www.${delegated}`);
    await eventually(
      'the status without the name',
      () => apps.get(alpha, 'shop'),
      (a) => JSON.stringify(a?.status?.hosts) === JSON.stringify([`shop.${alpha}.${BASE_DOMAIN}`]),
    );
    expect(findCondition((await apps.get(alpha, 'shop'))?.status?.conditions, 'HostnamesServed')).toMatchObject({ status: 'False', reason: 'HostnamesRefused' });
  });
});
