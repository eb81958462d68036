// Per-repository webhooks in a real cw-git instance (the events role with kubernetes.namespace): a RepositoryWebhook
// and its labelled Secret applied to the real apiserver, a stock git push woken through `POST /_events/notify`,
// the events posted to a real receiver with the webhook's own signature, the delivery log read through the JSON API
// with statuses (`/api/hooks`, `…/deliveries`, `…/deliveries/{id}`) and read scope, and a redelivery of a past
// delivery (write scope) posting the same payload with the same delivery id. A namespace and a bucket of its own.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { WEBHOOK_SECRET_LABEL, type RepositoryWebhook } from '../src/apis/v1alpha1/repository-webhook.ts';
import { findCondition } from '../src/conditions/index.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { parseConfig } from '../git-server/config/index.ts';
import { WebhookReceiver } from '../git-server/events/testing/webhook-receiver.ts';
import { startService as startGitServer, type RunningService } from '../git-server/serve.ts';
import { createInformer, loadKubeConnection, NAMESPACES, objectClient, SECRETS, waitFor, type Informer, type KubeObject } from '../src/kube/index.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { REPOSITORY_WEBHOOKS } from '../src/platform/resources.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { GitClient } from './harness/git-client.ts';
import { gitServiceConfig, newTokenSecret, type GitServiceSetup } from './harness/git-service.ts';

const SECRET = `repo-hook-${randomBytes(8).toString('hex')}`;
const namespace = `e2e-hooks-${randomBytes(3).toString('hex')}`;
const setup: GitServiceSetup = { s3: inject('s3'), bucket: `${inject('bucket')}-hooks-e2e`.slice(0, 63), tokenSecret: newTokenSecret(), roles: ['serve', 'events'], namespace };
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, setup.tokenSecret);
const readToken = mintToken({ sub: 'viewer', scopes: ['read'] }, setup.tokenSecret);
const kube = loadKubeConnection(inject('kubeconfig'));
const hooks = objectClient<RepositoryWebhook>(kube, REPOSITORY_WEBHOOKS);

let receiver: WebhookReceiver;
let git: GitClient;
let service: RunningService;
let watch: Informer<RepositoryWebhook>;
let store: S3ObjectStore;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  await ensureBucket(setup.s3, setup.bucket);
  await objectClient(kube, NAMESPACES).create({ metadata: { name: namespace } });
  cleanups.push(() => objectClient(kube, NAMESPACES).delete('', namespace));
  await objectClient<KubeObject & { stringData: Record<string, string> }>(kube, SECRETS).create({
    metadata: { name: 'hooks', namespace, labels: { [WEBHOOK_SECRET_LABEL]: 'true' } },
    stringData: { deploy: SECRET },
  });
  [receiver, git] = await Promise.all([WebhookReceiver.start({ secret: SECRET }), GitClient.create()]);
  cleanups.push(() => receiver.close());
  store = new S3ObjectStore({ config: setup.s3, bucket: setup.bucket, registry: new Registry() });
  cleanups.push(() => store.destroy());
  const base = await gitServiceConfig(setup);
  const text = stringify({ ...(parse(base.text) as object), events: { allow_private_targets: true, sweep_interval: '0' } });
  await writeFile(base.path, text);
  service = await startGitServer(parseConfig(text, { ...base.env, KUBECONFIG: inject('kubeconfig') }, { source: 'test config', baseDir: base.dir }), { logLevel: 'warn' });
  cleanups.push(() => service.stop());
  watch = createInformer<RepositoryWebhook>(kube, REPOSITORY_WEBHOOKS, { namespace });
  watch.start();
  cleanups.push(() => watch.stop());
  await watch.waitForSync();
}, 60_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const api = (path: string, init: { method?: string; bearer?: string } = {}) =>
  fetch(`${service.url}${path}`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${init.bearer ?? token}` } });
const notify = (repo: string) =>
  fetch(`${service.url}/_events/notify`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ repo }) });

async function resource(name: string, test: (hook: RepositoryWebhook | undefined) => boolean): Promise<RepositoryWebhook | undefined> {
  const { object, met } = await waitFor(watch, `${namespace}/${name}`, test, 20_000);
  if (!met) throw new Error(`RepositoryWebhook ${name}: not as expected within 20 s; status ${JSON.stringify(object?.status)}`);
  return object;
}

describe('per-repository webhooks in cw-git', () => {
  it('deliver a push to a RepositoryWebhook, logged and readable through the JSON API, and redeliver one', { timeout: 90_000 }, async () => {
    const repo = `hooks${randomBytes(3).toString('hex')}/site`;
    await new RepoStore({ store, registry: new Registry() }).createRepo(repo);
    await hooks.create({
      metadata: { name: 'site-deploy', namespace },
      spec: { repository: repo, url: receiver.url, secretRef: { name: 'hooks', key: 'deploy' }, events: { refs: ['refs/heads/**', 'refs/tags/*'] } },
    });
    await resource('site-deploy', (h) => findCondition(h?.status?.conditions, 'Ready')?.status === 'True');

    const work = await git.workdir(repo.replace('/', '-'));
    await git.run(['init', '-q'], { cwd: work });
    await git.commit(work, 'first', { 'README.md': 'hello\n' });
    await git.run(['tag', 'v1'], { cwd: work });
    const remote = `${service.url.replace('http://', `http://git:${token}@`)}/${repo}`;
    await git.run(['push', '-q', remote, 'main', 'v1'], { cwd: work });
    expect((await notify(repo)).status).toBe(200);
    await receiver.until(() => receiver.acknowledged(repo).length === 2);
    expect(receiver.acknowledged(repo).map((e) => `${e.action} ${e.ref_name}`)).toEqual(['create refs/heads/main', 'create refs/tags/v1']);
    expect(receiver.arrivals.every((a) => a.signatureValid === true)).toBe(true);
    const delivered = await resource('site-deploy', (h) => h?.status?.lastDelivery?.status === 'succeeded');
    expect(delivered?.status).toMatchObject({ consecutiveFailures: 0, lastDelivery: { id: 1, seq: '1', httpStatus: 204, deliveryId: receiver.arrivals[0]?.deliveryId } });

    // The webhooks of the repository and their delivery log, with the read scope.
    const listed = await api(`/${repo}/api/hooks`, { bearer: readToken });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([
      {
        name: 'site-deploy',
        url_origin: new URL(receiver.url).origin,
        signature: 'service',
        active: true,
        events: { refs: ['refs/heads/**', 'refs/tags/*'] },
        ready: { status: true, reason: 'Active', message: `Events of ${repo} are delivered.` },
        consecutive_failures: 0,
        last_delivery: expect.objectContaining({ id: 1, outcome: 'delivered', status_code: 204 }),
      },
    ]);
    const log = await api(`/${repo}/api/hooks/site-deploy/deliveries`, { bearer: readToken });
    expect(log.status).toBe(200);
    const records = (await log.json()) as Record<string, unknown>[];
    expect(records).toEqual([
      {
        id: 1,
        delivery_id: receiver.arrivals[0]?.deliveryId,
        at: expect.any(String),
        repo,
        from_seq: 1,
        to_seq: 1,
        events: 2,
        attempt: 1,
        redelivery: false,
        scheme: 'service',
        outcome: 'delivered',
        status_code: 204,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(records)).not.toContain(SECRET);
    expect(await (await api(`/${repo}/api/hooks/site-deploy/deliveries/1`, { bearer: readToken })).json()).toEqual(records[0]);
    expect((await api(`/${repo}/api/hooks/site-deploy/deliveries/7`)).status).toBe(404);
    expect(await (await api(`/${repo}/api/hooks/nope/deliveries`)).json()).toMatchObject({ error: 'webhook_not_found' });
    expect((await api(`/${repo}/api/hooks`, { bearer: 'not-a-token' })).status).toBe(401);

    // Redelivery: the write scope; the same payload with the same delivery id, recorded as a redelivery.
    const redeliver = `/${repo}/api/hooks/site-deploy/deliveries/1/redeliver`;
    expect((await api(redeliver, { method: 'POST', bearer: readToken })).status).toBe(403);
    const again = await api(redeliver, { method: 'POST' });
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual({ ...records[0], id: 2, attempt: 2, redelivery: true, at: expect.any(String), duration_ms: expect.any(Number) });
    expect(receiver.arrivals).toHaveLength(2);
    const [original, repeated] = receiver.arrivals;
    expect(repeated?.deliveryId).toBe(original?.deliveryId);
    expect(repeated?.body.equals(original?.body ?? Buffer.alloc(0))).toBe(true);
    expect(repeated?.signatureValid).toBe(true);
    const logged = (await (await api(`/${repo}/api/hooks/site-deploy/deliveries`)).json()) as { id: number; redelivery: boolean }[];
    expect(logged.map((r) => [r.id, r.redelivery])).toEqual([
      [2, true],
      [1, false],
    ]);
    // The status is about the stream: a redelivery moves neither lastDelivery nor consecutiveFailures.
    expect((await hooks.get(namespace, 'site-deploy'))?.status).toMatchObject({ consecutiveFailures: 0, lastDelivery: { id: 1 } });
    expect(await (await api(`/${repo}/api/hooks/site-deploy/deliveries/9/redeliver`, { method: 'POST' })).json()).toMatchObject({ error: 'delivery_not_found' });
  });
});
