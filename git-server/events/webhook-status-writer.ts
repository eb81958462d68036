// Writes the status of the `RepositoryWebhook` resources: cw-git's events bridge is its one writer (the spec is the
// user's). Level-based: on every resolution of a webhook and after every catch-up of one, the status is computed
// from what is known (webhook-status.ts: the resolution, whether the repository exists, the delivery log's
// summary) and written only when it differs from the cached one. The delivery log is in the bucket, shared by
// every instance with the role, so they all write the same status.
import type { FastifyBaseLogger } from 'fastify';
import type { RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { statusChanged } from '../../src/conditions/index.ts';
import { isNotFound, type ObjectClient } from '../../src/kube/index.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { readDeliveryLog, type DeliveryLog } from './delivery-log.ts';
import { webhookDeliveriesKey } from './webhook-layout.ts';
import { desiredWebhookStatus } from './webhook-status.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import type { WakeResult } from './bridge.ts';
import type { RepositoryWebhooks, WebhookState } from './repository-webhooks.ts';
import { SerialRuns } from './serial-runs.ts';
import { withStalled } from '../../src/conditions/stalled.ts';

export interface WebhookStatusWriterOptions {
  readonly client: Pick<ObjectClient<RepositoryWebhook>, 'patchStatus'>;
  readonly webhooks: Pick<RepositoryWebhooks, 'state' | 'cached'>;
  readonly store: ObjectStore;
  readonly log?: FastifyBaseLogger;
}

export class WebhookStatusWriter {
  readonly #options: WebhookStatusWriterOptions;
  /** Delivery logs by bucket key, as last appended or read. */
  readonly #logs = new Map<string, DeliveryLog>();
  /** By webhook key: whether the last catch-up found its repository. */
  readonly #exists = new Map<string, boolean>();
  readonly #runs = new SerialRuns((err, key) => this.#log?.warn({ err, webhook: key }, 'writing a repository webhook status failed; the next change writes it'));
  #log: FastifyBaseLogger | undefined;

  constructor(options: WebhookStatusWriterOptions) {
    this.#options = options;
    this.#log = options.log;
  }

  set log(log: FastifyBaseLogger) {
    this.#log = log;
  }

  /** A webhook was resolved anew: its status follows. */
  resolved(state: WebhookState): void {
    this.#schedule(state.key);
  }

  /** A webhook is gone: forget what was known of it. */
  removed(state: WebhookState): void {
    this.#exists.delete(state.key);
    const key = this.#logKey(state);
    if (key) this.#logs.delete(key);
  }

  /** A delivery was appended to the log at `logKey`: the next status shows it. */
  recorded(logKey: string, log: DeliveryLog): void {
    this.#logs.set(logKey, log);
  }

  /** A catch-up of the webhook `key` (`namespace/name`) ended. */
  caughtUp(key: string, result: WakeResult): void {
    if (result.outcome === 'gone' && !result.report) this.#exists.set(key, false);
    else if (result.report) this.#exists.set(key, true);
    this.#schedule(key);
  }

  /** Resolves once no write is under way. */
  settled(): Promise<void> {
    return this.#runs.settled();
  }

  #logKey(state: WebhookState): string | undefined {
    const uid = state.hook.metadata?.uid;
    return state.repo !== undefined && uid ? webhookDeliveriesKey(parseRepoPath(state.repo), uid) : undefined;
  }

  #schedule(key: string): void {
    this.#runs.schedule(key, () => this.#write(key));
  }

  async #write(key: string): Promise<void> {
    const { webhooks, store, client } = this.#options;
    const state = webhooks.state(key);
    const hook = webhooks.cached(key);
    // Only the incarnation that was resolved; a newer one is resolved (and written) next.
    if (!state || !hook || hook.metadata?.uid !== state.hook.metadata?.uid) return;
    const logKey = this.#logKey(state);
    let log = logKey ? this.#logs.get(logKey) : undefined;
    if (logKey && !log) {
      log = (await readDeliveryLog(store, logKey)).log;
      this.#logs.set(logKey, log);
    }
    const exists = this.#exists.get(key);
    // The spec and generation that were resolved, with the status as it stands now: observedGeneration never
    // claims a generation whose resolution is still under way.
    const resolved: RepositoryWebhook = { ...state.hook, ...(hook.status ? { status: hook.status } : {}) };
    const at = new Date();
    const computed = desiredWebhookStatus(resolved, { resolution: state.resolution, ...(exists !== undefined ? { repositoryExists: exists } : {}), ...(log ? { log } : {}) }, at);
    const desired = { ...computed, conditions: withStalled('RepositoryWebhook', computed.conditions, resolved.metadata?.generation, at) };
    if (!statusChanged(hook.status, desired)) return;
    try {
      await client.patchStatus(hook.metadata?.namespace ?? '', hook.metadata?.name ?? '', { status: desired });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
