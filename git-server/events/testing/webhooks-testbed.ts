// Test helper: the per-repository webhooks' lane against the real kube-apiserver and MinIO of the harness, in a
// namespace and a bucket of the test's own, with real receivers; and what tests need to drive it: Secrets and
// RepositoryWebhooks created through the apiserver, log entries published straight to the bucket, waits on the
// lane's resolutions (never sleeps).
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Registry } from 'prom-client';
import { inject } from 'vitest';
import { WEBHOOK_SECRET_LABEL, type RepositoryWebhook, type RepositoryWebhookSpec } from '../../../src/apis/v1alpha1/repository-webhook.ts';
import { createInformer, loadKubeConnection, objectClient, SECRETS, waitFor, type Informer, type KubeConnection, type KubeObject, type ObjectClient } from '../../../src/kube/index.ts';
import { NAMESPACES } from '../../../src/kube/resource.ts';
import { ensureBucket } from '../../../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { REPOSITORY_WEBHOOKS } from '../../../src/platform/resources.ts';
import { TargetPolicy } from '../../../src/target-policy.ts';
import { RepoStore, zeroOid, type RefUpdate } from '../../../src/repo-store/index.ts';
import type { WebhookState } from '../repository-webhooks.ts';
import { WebhooksLane, type WebhooksLaneOptions } from '../webhooks-lane.ts';

const Z = zeroOid('sha1');

export class WebhooksTestbed {
  readonly kube: KubeConnection;
  readonly namespace: string;
  readonly hooks: ObjectClient<RepositoryWebhook>;
  readonly secrets: ObjectClient<KubeObject & { stringData?: Record<string, string> }>;
  readonly store: S3ObjectStore;
  readonly repos: RepoStore;
  readonly lanes: WebhooksLane[] = [];
  #watch: Informer<RepositoryWebhook> | undefined;
  readonly #cleanups: (() => unknown)[] = [];

  private constructor(kube: KubeConnection, namespace: string, store: S3ObjectStore) {
    this.kube = kube;
    this.namespace = namespace;
    this.hooks = objectClient(kube, REPOSITORY_WEBHOOKS);
    this.secrets = objectClient(kube, SECRETS);
    this.store = store;
    this.repos = new RepoStore({ store, registry: new Registry() });
  }

  static async create(name: string): Promise<WebhooksTestbed> {
    const kube = loadKubeConnection(inject('kubeconfig'));
    const namespace = `hooks-${name}-${randomBytes(3).toString('hex')}`;
    await objectClient(kube, NAMESPACES).create({ metadata: { name: namespace } });
    const bucket = `${inject('bucket')}-wh-${name}`.slice(0, 63);
    await ensureBucket(inject('s3'), bucket);
    const store = new S3ObjectStore({ config: inject('s3'), bucket, registry: new Registry() });
    const bed = new WebhooksTestbed(kube, namespace, store);
    bed.#cleanups.push(
      () => store.destroy(),
      () => objectClient(kube, NAMESPACES).delete('', namespace),
    );
    return bed;
  }

  /** A lane delivering to loopback receivers (private targets allowed unless `policy` says otherwise). */
  async lane(over: Partial<WebhooksLaneOptions> = {}): Promise<WebhooksLane> {
    const lane = new WebhooksLane({
      repos: this.repos,
      objects: this.store,
      registry: new Registry(),
      policy: new TargetPolicy({ allowPrivate: true }),
      namespace: this.namespace,
      kubeconfig: inject('kubeconfig'),
      sweepIntervalMs: 3_600_000,
      answerTimeoutMs: 2000,
      backoff: { baseMs: 50, maxMs: 200 },
      ...over,
    });
    await lane.start(pino({ level: process.env.EVENTS_TEST_LOG ?? 'silent' }));
    this.lanes.push(lane);
    return lane;
  }

  /** A Secret labelled for webhooks (`labelled: false`: one cw-git must not read). */
  async secret(name: string, data: Record<string, string>, labelled = true): Promise<void> {
    await this.secrets.create({ metadata: { name, namespace: this.namespace, ...(labelled ? { labels: { [WEBHOOK_SECRET_LABEL]: 'true' } } : {}) }, stringData: data });
  }

  async webhook(name: string, spec: RepositoryWebhookSpec): Promise<RepositoryWebhook> {
    return this.hooks.create({ metadata: { name, namespace: this.namespace }, spec });
  }

  /** Resolves once `test` holds for the resource `name` as the apiserver has it (watched, never polled). */
  async resource(name: string, test: (hook: RepositoryWebhook | undefined) => boolean, timeoutMs = 20_000): Promise<RepositoryWebhook | undefined> {
    if (!this.#watch) {
      this.#watch = createInformer<RepositoryWebhook>(this.kube, REPOSITORY_WEBHOOKS, { namespace: this.namespace });
      this.#watch.start();
      const watch = this.#watch;
      this.#cleanups.push(() => watch.stop());
      await watch.waitForSync();
    }
    const { object, met } = await waitFor(this.#watch, `${this.namespace}/${name}`, test, timeoutMs);
    if (!met) throw new Error(`RepositoryWebhook ${name}: condition not met within ${timeoutMs} ms; status ${JSON.stringify(object?.status)}`);
    return object;
  }

  /** Resolves once `test` holds for the lane's view of the webhook `name` (checked now and on every resolution). */
  until(lane: WebhooksLane, name: string, test: (state: WebhookState | undefined) => boolean, timeoutMs = 20_000): Promise<WebhookState | undefined> {
    const key = `${this.namespace}/${name}`;
    const current = () => lane.webhooks.list(lane.webhooks.cached(key)?.spec.repository ?? '').find((s) => s.key === key);
    if (test(current())) return Promise.resolve(current());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (stop(), reject(new Error(`webhook ${name}: condition not met within ${timeoutMs} ms`))), timeoutMs);
      const stop = lane.webhooks.onChange((change) => {
        const state = 'state' in change ? change.state : undefined;
        if (('state' in change ? change.state.key : change.removed.key) !== key) return;
        if (test(state)) {
          clearTimeout(timer);
          stop();
          resolve(state);
        }
      });
    });
  }

  /** A new repository of the bucket. */
  async repository(prefix: string): Promise<string> {
    const repo = `${prefix}${randomBytes(3).toString('hex')}/site`;
    await this.repos.createRepo(repo);
    return repo;
  }

  /** One ref_update entry: `refs` created (`+name`), moved (`name`) or deleted (`-name`), e.g. `['main', '+refs/tags/v1']`. */
  async publish(repo: string, refs: readonly string[]): Promise<number> {
    const head = await this.repos.readHead(repo, { fresh: true });
    const current = await this.repos.refsAt(repo, head.seq);
    const updates: RefUpdate[] = refs.map((spec) => {
      const ref = spec.replace(/^[+-]/, '');
      const full = ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
      const old = current.get(full) ?? Z;
      return { ref: full, old, new: spec.startsWith('-') ? Z : randomBytes(20).toString('hex') };
    });
    const result = await this.repos.publish(repo, { kind: 'ref_update', refUpdates: updates, pusher: 'ada', requestId: `req-${randomBytes(4).toString('hex')}`, atomic: true });
    if (result.outcome !== 'published') throw new Error(`publish ${refs.join(' ')}: ${result.outcome}`);
    return result.seq;
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) await lane.drain(1000);
    for (const cleanup of this.#cleanups.reverse()) await cleanup();
  }
}
