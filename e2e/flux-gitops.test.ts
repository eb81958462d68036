// Flux drives the platform from a repository on cw-git, with no API call: Flux's own source-controller and
// kustomize-controller (the published modules, outside a cluster) against the run's control plane; a project's
// manifests pushed with stock git; a GitRepository reading them over plain HTTP with a basic-auth Secret (a cw-git
// token that reads that repository only) and a Kustomization (`prune: true`, `wait: true`) applying them. The real
// cw-operator (its Repository controller on cw-git's bucket), cw-runtime and cw-db, Route 53 from the run's moto, a
// parent-zone server for `test.`, and cw-git's events role delivering to the RepositoryWebhook and writing its
// status. What a GitOps user relies on, each seen happen: the Kustomization Ready only once every Cloudwright object
// is (kstatus: Ready and observedGeneration), the app answering on its hostname; a value changed in git served
// within one polling interval; a hand-made change reverted at the next sync while the controllers' status writes
// never make Flux apply again; an object marked `reconcile: disabled` let go (the API's guard reads the mark and
// Flux keeps off it) until unmarked; an invalid manifest failing the Kustomization with the CRD's message and nothing
// else; deleted files pruned (the app no longer served, its build artifacts collected, the database deleted). The
// Argo CD health snippet (docs/argocd-health/cloudwright.lua) is run on the live objects.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { WebhookReceiver } from '../git-server/events/testing/webhook-receiver.ts';
import type { RunningService } from '../git-server/serve.ts';
import type { Condition } from '../src/apis/v1alpha1/conditions.ts';
import { allKinds } from '../src/apis/v1alpha1/index.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RepositoryWebhook } from '../src/apis/v1alpha1/repository-webhook.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../src/conditions/index.ts';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { fieldsAppliedByOthers } from '../src/kube/applied-fields.ts';
import { loadKubeConnection, objectClient, type KubeObject } from '../src/kube/index.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { DATABASES, PROJECT_DOMAINS, REPOSITORY_WEBHOOKS, resourceOf, RUNTIME_APPS } from '../src/platform/resources.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { createMemberAccount, createProjectNamespace } from './harness/accounts.ts';
import { argoHealth } from './harness/argocd-health.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { delegatingDnsEnv } from './harness/dns-env.ts';
import { applyOutputs, fluxSyncManifests, kustomizationUntil as fluxKustomizationUntil, readyAt, syncNow as fluxSyncNow, type Kustomization } from './harness/flux-objects.ts';
import { startFlux, type Flux } from './harness/flux.ts';
import { buildManifest, domainManifests, hostnameManifest, uploadBuild, type UploadedBuild } from './harness/project-manifests.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService } from './harness/git-service.ts';
import { kubectl as runKubectl } from './harness/kubectl.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, notServedAnywhere, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
/** How often the GitRepository polls cw-git, and how often the Kustomization re-applies what it has (drift correction). */
const SOURCE_INTERVAL_S = 5;
const SYNC_INTERVAL_S = 10;
/** What a pass takes beyond its interval: fetching the artifact, applying, the operator and the runtime reacting. */
const SLACK_MS = 15_000;

interface Reconciled extends KubeObject {
  status?: { conditions?: Condition[]; observedGeneration?: number };
}

const running: Service[] = [];
const HOOK_SECRET = randomBytes(16).toString('hex');
let flux: Flux;
let gitService: RunningService;
let git: GitClient;
let db: DatabaseServer;
let parent: ParentZoneServer;
let receiver: WebhookReceiver;
let runtime: Runtime;
let store: S3ObjectStore;
let project: string;
let fluxNamespace: string;
let repo: string;
let dir: string;
/** cw-git tokens: the user's, reaching the project's repositories (as a project git token does); Flux's, reading the platform repository only. */
let pushToken: string;
let fluxToken: string;
/** cw-git's operator token (every repository), which `POST /_events/notify` needs. */
let notifyToken: string;

beforeAll(async () => {
  const member = await createMemberAccount(kubeconfig, 'flux');
  project = member.project;
  await createProjectNamespace(kubeconfig, project);
  dir = mkdtempSync(join(inject('stateDir'), 'flux-'));
  fluxNamespace = `flux-system-${randomBytes(4).toString('hex')}`;
  // cw-git on a bucket of its own: its events role sweeps every repository of its bucket.
  const gitBucket = `${inject('bucket')}-flux`.slice(0, 63);
  await ensureBucket(inject('s3'), gitBucket);
  [parent, db, receiver, git] = await Promise.all([
    startParentZoneServer({ suffix: 'test' }),
    startDatabaseServer({ name: 'cw-db-flux' }),
    WebhookReceiver.start({ secret: HOOK_SECRET }),
    GitClient.create(),
  ]);
  const tokenSecret = newTokenSecret();
  // The events role reads the project's RepositoryWebhooks (kubernetes.namespace) and writes their status.
  gitService = await startGitService({ s3: inject('s3'), bucket: gitBucket, tokenSecret, roles: ['serve', 'events'], namespace: project, kubeconfig, allowPrivateTargets: true, sweepInterval: '0' });
  store = new S3ObjectStore({ config: inject('s3'), bucket: gitBucket, registry: new Registry() });
  repo = `${project}/platform`;
  await new RepoStore({ store, registry: new Registry() }).createRepo(repo);
  const dns = delegatingDnsEnv(parent.address, BASE_DOMAIN);

  [runtime, , flux] = await Promise.all([
    startRuntime('cw-runtime-flux', project, running, { CW_RUNTIME_DATABASE_URL: db.url }),
    // With the git bucket, the operator's Repository controller creates the repositories declared in git.
    startOperator(project, running, { ...dns, ...db.clientEnv, CW_GIT_BUCKET: gitBucket }),
    startFlux({ kubeconfig, stateDir: dir, namespace: fluxNamespace, watchAllNamespaces: false }),
  ]);
  pushToken = mintToken({ sub: 'ada', scopes: ['read', 'write'], repos: [project] }, tokenSecret);
  fluxToken = mintToken({ sub: 'flux', scopes: ['read'], repos: [repo] }, tokenSecret);
  notifyToken = mintToken({ sub: 'notify', scopes: ['write'] }, tokenSecret);
}, 180_000);

afterAll(async () => {
  await flux?.stop();
  await Promise.all([...running.map((s) => s.stop(5_000)), gitService?.stop(), db?.stop(), parent?.stop(), receiver?.close()]);
  store?.destroy();
});

const kubectl = (...args: string[]) => runKubectl(kubeconfig, ...args);
const kustomizationUntil = (what: string, timeoutMs: number, test: (k: Kustomization) => boolean) => fluxKustomizationUntil(kubeconfig, fluxNamespace, what, timeoutMs, test);
const syncNow = (name: string) => fluxSyncNow(kubeconfig, fluxNamespace, name);
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);

/** The Cloudwright objects the Kustomization applied (its inventory), read from the apiserver. */
async function appliedObjects(k: Kustomization): Promise<Reconciled[]> {
  const objects: Reconciled[] = [];
  for (const { id } of k.status?.inventory?.entries ?? []) {
    const parts = id.split('_');
    const [namespace, kind, group] = [parts[0] ?? '', parts.at(-1) ?? '', parts.at(-2) ?? ''];
    if (group !== 'cloudwright.dev') continue;
    const descriptor = allKinds.find((d) => d.kind === kind);
    if (!descriptor) throw new Error(`no Cloudwright kind ${kind}`);
    const object = await objectClient<Reconciled>(conn, resourceOf(descriptor)).get(namespace, parts.slice(1, -2).join('_'));
    if (object) objects.push(object);
  }
  return objects;
}
const generations = async (k: Kustomization) => Object.fromEntries((await appliedObjects(k)).map((o) => [`${o.kind}/${o.metadata?.name}`, o.metadata?.generation]));

/** The project's manifests, one file per concern, as a user would lay them out (docs/gitops.md). */
function projectFiles(options: { greeting: string; build: UploadedBuild; domain: string; host: string }): Record<string, string> {
  const { build, domain, host } = options;
  const ns = project;
  return {
    [`projects/${ns}/app.yaml`]: [
      buildManifest(ns, 'web', build),
      `apiVersion: cloudwright.dev/v1alpha1
kind: RuntimeApp
metadata: { name: web, namespace: ${ns} }
spec:
  displayName: Web
  activeBuildId: ${build.id}
  environment: { GREETING: ${JSON.stringify(options.greeting)} }
  databaseEnvironment: { DB_TOKEN: { database: orders, access: full } }
`,
      hostnameManifest(ns, 'web', host),
    ].join('---\n'),
    [`projects/${ns}/database.yaml`]: `apiVersion: cloudwright.dev/v1alpha1
kind: Database
metadata: { name: orders, namespace: ${ns} }
spec: { displayName: Orders }
`,
    [`projects/${ns}/domain.yaml`]: domainManifests(ns, domain),
    [`projects/${ns}/repositories.yaml`]: `apiVersion: cloudwright.dev/v1alpha1
kind: Repository
metadata: { name: site, namespace: ${ns} }
spec: { owner: ${ns}, name: site }
`,
    // In a real repository this Secret is encrypted (SOPS) or sealed: docs/gitops.md.
    [`projects/${ns}/webhook.yaml`]: `apiVersion: v1
kind: Secret
metadata: { name: platform-hook, namespace: ${ns}, labels: { cloudwright.dev/webhook-secret: "true" } }
stringData: { key: ${HOOK_SECRET} }
---
apiVersion: cloudwright.dev/v1alpha1
kind: RepositoryWebhook
metadata: { name: platform-pushes, namespace: ${ns} }
spec: { repository: ${repo}, url: ${receiver.url}, secretRef: { name: platform-hook, key: key } }
`,
  };
}

describe('Flux syncing a project from cw-git', () => {
  const domain = `flux-${randomBytes(4).toString('hex')}.test`;
  const host = `www.${domain}`;
  const greeting = `hello from flux ${randomBytes(2).toString('hex')}`;
  let work: string;
  let remote: string;
  let files: Record<string, string>;
  let build: UploadedBuild;
  let converged: Kustomization;
  let head: string;

  const push = async (message: string, change: (files: Record<string, string>) => Record<string, string>) => {
    const next = change(files);
    for (const path of Object.keys(files)) if (!(path in next)) rmSync(join(work, path));
    files = next;
    head = await git.commit(work, message, files);
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    return head;
  };

  it('makes the Kustomization Ready once every object converged, the app answering on its hostname', { timeout: 240_000 }, async () => {
    // The pipeline's upload: the artifact at its key in the run's bucket (the Build in git records it).
    build = await uploadBuild(project, 'web', `export default { fetch: (request, env) => new Response(env.GREETING + (env.DB_TOKEN ? ' with' : ' without') + ' a database') };\n`);

    work = await git.workdir('platform');
    remote = `${gitService.url.replace('http://', `http://git:${pushToken}@`)}/${repo}`;
    await git.run(['init', '-q'], { cwd: work });
    files = {};
    const first = await push('the project', () => projectFiles({ greeting, build, domain, host }));

    const bootstrap = join(dir, 'flux.yaml');
    writeFileSync(
      bootstrap,
      fluxSyncManifests({
        namespace: fluxNamespace,
        url: `${gitService.url}/${repo}`,
        token: fluxToken,
        name: project,
        path: `./projects/${project}`,
        sourceIntervalS: SOURCE_INTERVAL_S,
        syncIntervalS: SYNC_INTERVAL_S,
      }),
    );
    const applied = await kubectl('apply', '-f', bootstrap);
    expect(applied.code, applied.stderr).toBe(0);

    // The registrar's part, as the user does it: delegate the zone Flux's ProjectDomain created.
    const zoned = await eventually(
      'the hosted zone',
      () => objectClient<ProjectDomain>(conn, PROJECT_DOMAINS).get(project, 'shop'),
      (d) => (d?.status?.nameservers?.length ?? 0) > 0,
      60_000,
    );
    // Not delegated yet: Flux waits, and Argo CD's snippet calls the domain Progressing (a real status, not yet Ready).
    expect(argoHealth(zoned ?? {}).status).toBe('Progressing');
    parent.delegate(domain, zoned?.status?.nameservers ?? []);

    converged = await kustomizationUntil(`Kustomization Ready at ${first}`, 150_000, readyAt(first));
    await servedEverywhere([runtime], host, `${greeting} with a database`);
    await servedEverywhere([runtime], `web.${project}.${BASE_DOMAIN}`, `${greeting} with a database`);

    // Ready meant every object converged, as kstatus reads it: Ready True at its current generation.
    const objects = await appliedObjects(converged);
    expect(objects.map((o) => o.kind).sort()).toEqual(['AppHostname', 'Build', 'Database', 'DnsRecord', 'ProjectDomain', 'Repository', 'RepositoryWebhook', 'RuntimeApp']);
    for (const object of objects.filter((o) => o.kind !== 'Build')) {
      expect(findCondition(object.status?.conditions, 'Ready')?.status, `${object.kind} Ready`).toBe('True');
      expect(object.status?.observedGeneration, `${object.kind} observedGeneration`).toBe(object.metadata?.generation);
    }
    // The repository declared in git is served by cw-git.
    await git.run(['ls-remote', `${gitService.url.replace('http://', `http://git:${pushToken}@`)}/${project}/site`]);
    // …and the Argo CD health snippets of docs/argocd-health/ say the same of each.
    for (const object of objects) {
      expect({ kind: object.kind, ...argoHealth(object) }).toMatchObject({ kind: object.kind, status: 'Healthy' });
    }
  });

  it('serves a value changed in git within one polling interval', { timeout: 60_000 }, async () => {
    const changed = `${greeting} again`;
    await push('a new greeting', () => projectFiles({ greeting: changed, build, domain, host }));
    await servedEverywhere([runtime], host, `${changed} with a database`, SOURCE_INTERVAL_S * 1000 + SLACK_MS);
    converged = await kustomizationUntil(`Kustomization Ready at ${head}`, 30_000, readyAt(head));
  });

  it('reverts a hand-made change at the next sync, and never fights the controllers over status', { timeout: 90_000 }, async () => {
    const before = await generations(converged);
    const patched = await kubectl('patch', '-n', project, 'runtimeapp', 'web', '--type=merge', '-p', '{"spec":{"environment":{"GREETING":"patched by hand"}}}');
    expect(patched.code, patched.stderr).toBe(0);
    const reverted = await eventually(
      'the patch reverted by Flux',
      () => apps.get(project, 'web'),
      (a) => a?.spec.environment?.GREETING === `${greeting} again`,
      SYNC_INTERVAL_S * 1000 + SLACK_MS,
    );
    // The hand-made change and Flux's revert: two generations, no more.
    expect(reverted?.metadata?.generation).toBe((before['RuntimeApp/web'] ?? 0) + 2);
    await servedEverywhere([runtime], host, `${greeting} again with a database`);

    // Two more syncs while a controller writes status: cw-git's events role delivers the pushes so far to the webhook
    // declared in git and records the delivery in the RepositoryWebhook's status. Flux applies nothing.
    const settled = await generations(converged);
    const applies = applyOutputs(flux).length;
    const notified = await fetch(`${gitService.url}/_events/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${notifyToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ repo }),
    });
    expect(notified.status).toBe(200);
    await receiver.until(() => receiver.acknowledged(repo).length > 0);
    await syncNow(project);
    await eventually(
      'the delivery in the webhook’s status',
      () => objectClient<RepositoryWebhook>(conn, REPOSITORY_WEBHOOKS).get(project, 'platform-pushes'),
      (h) => h?.status?.lastDelivery?.status === 'succeeded',
    );
    const after = await syncNow(project);
    expect(await generations(after)).toEqual(settled);
    expect(findCondition(after.status?.conditions, 'Ready')?.status).toBe('True');
    // kustomize-controller's own account of both syncs: every object unchanged.
    const outputs = await eventually(
      'both syncs in kustomize-controller’s log',
      async () => applyOutputs(flux).slice(applies),
      (o) => o.length >= 2,
      10_000,
    );
    for (const output of outputs) expect(new Set(Object.values(output))).toEqual(new Set(['unchanged']));
  });

  it('lets go of an object marked reconcile: disabled: the API guard no longer counts its apply, and a sync keeps what was written', { timeout: 90_000 }, async () => {
    const marked = await kubectl('annotate', '-n', project, 'runtimeapp', 'web', 'kustomize.toolkit.fluxcd.io/reconcile=disabled');
    expect(marked.code, marked.stderr).toBe(0);
    const live = await apps.get(project, 'web');
    if (!live) throw new Error('the app is gone');
    const next = { ...live, spec: { ...live.spec, environment: { ...live.spec.environment, GREETING: 'written beside Flux' } } };
    // Flux's apply is still in managedFields; the mark is what the guard reads.
    expect(fieldsAppliedByOthers({ ...live, metadata: { ...live.metadata, annotations: {} } }, next, 'cw-api')).not.toEqual([]);
    expect(fieldsAppliedByOthers(live, next, 'cw-api')).toEqual([]);
    await apps.replace(next);
    await syncNow(project);
    await syncNow(project);
    expect((await apps.get(project, 'web'))?.spec.environment?.GREETING).toBe('written beside Flux');

    // Unmarked, Flux applies git's value again.
    expect((await kubectl('annotate', '-n', project, 'runtimeapp', 'web', 'kustomize.toolkit.fluxcd.io/reconcile-')).code).toBe(0);
    await syncNow(project);
    await eventually(
      'git’s value applied again',
      () => apps.get(project, 'web'),
      (a) => a?.spec.environment?.GREETING === `${greeting} again`,
      SYNC_INTERVAL_S * 1000 + SLACK_MS,
    );
  });

  it('fails the Kustomization with the CRD’s message on an invalid manifest, nothing else affected', { timeout: 90_000 }, async () => {
    const good = head;
    const before = await generations(converged);
    const broken = await push('an invalid app', (f) => ({
      ...f,
      [`projects/${project}/broken.yaml`]: `apiVersion: cloudwright.dev/v1alpha1
kind: RuntimeApp
metadata: { name: broken, namespace: ${project} }
spec: { displayName: Broken, maxConcurrentRequests: 0 }
`,
    }));
    const failed = await kustomizationUntil(`Kustomization failing at ${broken}`, SOURCE_INTERVAL_S * 1000 + SLACK_MS, (k) => {
      const ready = findCondition(k.status?.conditions, 'Ready');
      return k.status?.lastAttemptedRevision === `main@sha1:${broken}` && ready?.status === 'False';
    });
    const message = findCondition(failed.status?.conditions, 'Ready')?.message ?? '';
    expect(message).toContain('RuntimeApp/');
    expect(message).toContain('spec.maxConcurrentRequests');
    expect(message).toContain('should be greater than or equal to 1');
    expect(failed.status?.lastAppliedRevision).toBe(`main@sha1:${good}`);
    expect(await apps.get(project, 'broken')).toBeUndefined();
    expect(await generations(converged)).toEqual(before);
    await servedEverywhere([runtime], host, `${greeting} again with a database`);

    const fixed = await push('drop the invalid app', (f) => Object.fromEntries(Object.entries(f).filter(([path]) => !path.endsWith('broken.yaml'))));
    converged = await kustomizationUntil(`Kustomization Ready at ${fixed}`, SOURCE_INTERVAL_S * 1000 + SLACK_MS, readyAt(fixed));
  });

  it('prunes deleted files: the app no longer served, its builds collected, the database deleted', { timeout: 120_000 }, async () => {
    const pruned = await push('retire the app and its database', (f) => Object.fromEntries(Object.entries(f).filter(([path]) => !path.endsWith('app.yaml') && !path.endsWith('database.yaml'))));
    const synced = await kustomizationUntil(`Kustomization Ready at ${pruned}`, SOURCE_INTERVAL_S * 1000 + SLACK_MS, readyAt(pruned));
    expect((await appliedObjects(synced)).map((o) => o.kind).sort()).toEqual(['DnsRecord', 'ProjectDomain', 'Repository', 'RepositoryWebhook']);
    await notServedAnywhere([runtime], host);
    await notServedAnywhere([runtime], `web.${project}.${BASE_DOMAIN}`);
    const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
    await eventually(
      'the app gone and its build artifact collected',
      async () => [await apps.get(project, 'web'), await bucket.head(build.key)],
      ([app, artifact]) => !app && !artifact,
      60_000,
    );
    await eventually(
      'the database deleted',
      () => objectClient<Reconciled>(conn, DATABASES).get(project, 'orders'),
      (d) => d === undefined,
      60_000,
    );
  });
});
