// The per-repository webhooks as cw-git sees them: `RepositoryWebhook` resources of its `kubernetes.webhook_namespace`
// and the Secrets labelled for webhooks there, both watched (informers), each webhook resolved to a delivery
// target or to the reason it has none (its Secret missing, its URL refused by the target policy, paused). Level-
// based: any change of a webhook, or of a Secret one names, re-resolves that webhook from the caches; listeners
// hear every resolution (the events role wakes the repository of a webhook that became ready, and writes status).
import type { FastifyBaseLogger } from 'fastify';
import { REPOSITORY_WEBHOOKS } from '../../src/platform/resources.ts';
import { RepositoryWebhookReasons, WEBHOOK_SECRET_LABEL, type RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { createInformer, objectKey, SECRETS, type Informer, type KubeConnection, type KubeObject } from '../../src/kube/index.ts';
import type { DeliveryClient } from './delivery-client.ts';
import type { DeliveryTarget } from './delivery-target.ts';
import { SerialRuns } from './serial-runs.ts';
import { resolveWebhook, webhookRepository, type SecretData, type WebhookResolution } from './webhook-resolution.ts';

type Secret = KubeObject & SecretData;

/** One webhook as last resolved. */
export interface WebhookState {
  /** `namespace/name` */
  readonly key: string;
  /** The resource as cached when it was resolved. */
  readonly hook: RepositoryWebhook;
  /** `owner/name`, or `undefined` for a name that is no repository path. */
  readonly repo: string | undefined;
  readonly resolution: WebhookResolution;
  /** What it was resolved from: the spec's generation and the Secret's version (a status write changes neither). */
  readonly from: string;
}

/** A webhook resolved anew (`state`), or gone (`removed`: its key and last state). */
export type WebhookChange = { readonly state: WebhookState } | { readonly removed: WebhookState };

export interface RepositoryWebhooksOptions {
  readonly kube: KubeConnection;
  /** cw-git's `kubernetes.webhook_namespace`: where the webhooks and their Secrets are, and no other Secret. */
  readonly namespace: string;
  /** Checks each webhook's URL against the target policy before it counts as ready. */
  readonly client: Pick<DeliveryClient, 'refusal'>;
  /** Every webhook's URL is checked again this often (name resolution changes). Default 5 minutes. */
  readonly recheckIntervalMs?: number;
  readonly log?: FastifyBaseLogger;
}

export class RepositoryWebhooks {
  readonly namespace: string;
  readonly #hooks: Informer<RepositoryWebhook>;
  readonly #secrets: Informer<Secret>;
  readonly #client: Pick<DeliveryClient, 'refusal'>;
  readonly #recheckMs: number;
  readonly #states = new Map<string, WebhookState>();
  readonly #listeners = new Set<(change: WebhookChange) => void>();
  /** Resolutions of one webhook never overlap. */
  readonly #runs = new SerialRuns((err, key) => this.#log?.warn({ err, webhook: key }, 'resolving a repository webhook failed'));
  /** Keys to resolve again even when nothing they are resolved from changed (the periodic URL check). */
  readonly #again = new Set<string>();
  #recheck: NodeJS.Timeout | undefined;
  #log: FastifyBaseLogger | undefined;

  constructor(options: RepositoryWebhooksOptions) {
    this.namespace = options.namespace;
    const onError = (what: string) => (err: unknown) => this.#log?.warn({ err }, `watching ${what} failed; retrying`);
    this.#hooks = createInformer(options.kube, REPOSITORY_WEBHOOKS, { namespace: options.namespace, onError: onError('RepositoryWebhooks') });
    // Only Secrets labelled for webhooks: a webhook cannot make cw-git sign with a Secret not meant for it.
    this.#secrets = createInformer(options.kube, SECRETS, { namespace: options.namespace, labelSelector: `${WEBHOOK_SECRET_LABEL}=true`, onError: onError('webhook Secrets') });
    this.#client = options.client;
    this.#recheckMs = options.recheckIntervalMs ?? 5 * 60_000;
    this.#log = options.log;
  }

  /** Starts watching; resolves once both caches are filled and every webhook resolved. */
  async start(log?: FastifyBaseLogger): Promise<void> {
    this.#log = log ?? this.#log;
    this.#hooks.onChange((hook) => this.#schedule(objectKey(hook)));
    this.#secrets.onChange((secret) => {
      for (const hook of this.#hooks.list()) if (hook.spec?.secretRef?.name === secret.metadata?.name) this.#schedule(objectKey(hook));
    });
    this.#hooks.start();
    this.#secrets.start();
    await Promise.all([this.#hooks.waitForSync(), this.#secrets.waitForSync()]);
    for (const hook of this.#hooks.list()) this.#schedule(objectKey(hook));
    await this.settled();
    const recheck = () => {
      for (const key of this.#states.keys()) this.#schedule(key, true);
      this.#recheck = setTimeout(recheck, this.#recheckMs).unref();
    };
    this.#recheck = setTimeout(recheck, this.#recheckMs).unref();
  }

  stop(): void {
    clearTimeout(this.#recheck);
    this.#hooks.stop();
    this.#secrets.stop();
  }

  /** Resolves once no resolution is under way. */
  settled(): Promise<void> {
    return this.#runs.settled();
  }

  /** Calls `listener` on every resolution and removal until the returned function is called. */
  onChange(listener: (change: WebhookChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The targets of `repo`: its ready webhooks. */
  targetsOf(repo: string): DeliveryTarget[] {
    return [...this.#states.values()].flatMap((s) => (s.repo === repo && s.resolution.kind === 'ready' ? [s.resolution.target] : []));
  }

  /** The repositories with a ready webhook (what a sweep of this bridge wakes). */
  repositories(): string[] {
    return [...new Set([...this.#states.values()].flatMap((s) => (s.repo !== undefined && s.resolution.kind === 'ready' ? [s.repo] : [])))];
  }

  /** Every webhook of `repo`, by name. */
  list(repo: string): WebhookState[] {
    return [...this.#states.values()].filter((s) => s.repo === repo).sort((a, b) => a.key.localeCompare(b.key));
  }

  /** The webhook `name` of `repo`, if there is one. */
  get(repo: string, name: string): WebhookState | undefined {
    const state = this.#states.get(`${this.namespace}/${name}`);
    return state?.repo === repo ? state : undefined;
  }

  /** The webhook `namespace/name` as last resolved. */
  state(key: string): WebhookState | undefined {
    return this.#states.get(key);
  }

  /** The webhook resource as cached now (its status included). */
  cached(key: string): RepositoryWebhook | undefined {
    return this.#hooks.get(key);
  }

  /** Resolves `key` after the resolution under way; `again`: even when nothing it is resolved from changed. */
  #schedule(key: string, again = false): void {
    if (again) this.#again.add(key);
    this.#runs.schedule(key, () => this.#resolve(key, this.#again.delete(key)));
  }

  async #resolve(key: string, force: boolean): Promise<void> {
    const hook = this.#hooks.get(key);
    if (!hook?.spec) {
      const last = this.#states.get(key);
      this.#states.delete(key);
      if (last) this.#emit({ removed: last });
      return;
    }
    const secret = this.#secrets.get(`${this.namespace}/${hook.spec.secretRef.name}`);
    // A status write (ours) changes neither the spec's generation nor the Secret: nothing to resolve again.
    const from = `${hook.metadata?.uid ?? ''}/${hook.metadata?.generation ?? ''}/${secret?.metadata?.uid ?? ''}/${secret?.metadata?.resourceVersion ?? ''}`;
    if (!force && this.#states.get(key)?.from === from) return;
    let resolution = resolveWebhook(hook, secret);
    if (resolution.kind === 'ready') {
      const refused = await this.#client.refusal(resolution.target);
      if (refused) resolution = { kind: 'not-ready', reason: RepositoryWebhookReasons.TargetRefused, message: `${refused}; nothing is delivered.` };
    }
    // The cache may have moved on while the URL was checked: the newer version is resolved next (scheduled by its change).
    const state: WebhookState = { key, hook, repo: webhookRepository(hook), resolution, from };
    this.#states.set(key, state);
    this.#emit({ state });
  }

  #emit(change: WebhookChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (err) {
        this.#log?.warn({ err }, 'a repository webhook listener failed');
      }
    }
  }
}
