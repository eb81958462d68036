// What a `RepositoryWebhook` resource and its Secret make: a delivery target, or why there is none. Pure (the
// resource and the Secret as read), so every reason is table-tested; the target policy's verdict, which needs name
// resolution, is added by the caller.
import { RepositoryWebhookReasons as Reasons, type RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { deliveryTarget, type DeliveryTarget } from './delivery-target.ts';
import { eventFilter } from './event-filter.ts';
import { standardWebhookKey } from './standard-webhooks.ts';
import { webhookCursorKey, webhookDeliveriesKey } from './webhook-layout.ts';

/** A Secret as read from the apiserver: its `data` values are base64. */
export interface SecretData {
  readonly data?: Readonly<Record<string, string>>;
}

export type WebhookResolution =
  | { readonly kind: 'ready'; readonly target: DeliveryTarget }
  | { readonly kind: 'not-ready'; readonly reason: (typeof Reasons)[Exclude<keyof typeof Reasons, 'Active'>]; readonly message: string };

/** A webhook's target id (logs, metrics): `hook:<namespace>/<name>`. */
export function webhookTargetId(hook: Pick<RepositoryWebhook, 'metadata'>): string {
  return `hook:${hook.metadata?.namespace ?? ''}/${hook.metadata?.name ?? ''}`;
}

/**
 * The target `hook` makes with `secret` (the Secret its `secretRef` names, when cw-git can read it). The target
 * starts at the resource's creation time, keeps its cursor under its uid, signs by its scheme and filters by its
 * `events`. Messages name the Secret and its key, never a value.
 */
export function resolveWebhook(hook: RepositoryWebhook, secret: SecretData | undefined): WebhookResolution {
  const { spec } = hook;
  const ref = spec.secretRef;
  if (spec.active === false) return { kind: 'not-ready', reason: Reasons.Inactive, message: 'spec.active is false: nothing is delivered; the webhook keeps its place in the log.' };
  const encoded = secret?.data?.[ref.key];
  if (secret === undefined || encoded === undefined) {
    const what = secret === undefined ? `Secret ${ref.name} is not found (cw-git reads only Secrets labelled cloudwright.dev/webhook-secret: "true")` : `Secret ${ref.name} has no key ${ref.key}`;
    return { kind: 'not-ready', reason: Reasons.SecretNotFound, message: `${what}; nothing is delivered until it is.` };
  }
  const value = Buffer.from(encoded, 'base64').toString('utf8');
  if (value.length === 0) return { kind: 'not-ready', reason: Reasons.InvalidSecret, message: `Key ${ref.key} of Secret ${ref.name} is empty.` };
  const scheme = spec.signature ?? 'service';
  if (scheme === 'standard-webhooks') {
    const key = standardWebhookKey(value);
    if ('invalid' in key) return { kind: 'not-ready', reason: Reasons.InvalidSecret, message: `Key ${ref.key} of Secret ${ref.name} cannot sign standard-webhooks posts: ${key.invalid}.` };
  }
  const uid = hook.metadata?.uid ?? '';
  const created = hook.metadata?.creationTimestamp;
  return {
    kind: 'ready',
    target: deliveryTarget({
      id: webhookTargetId(hook),
      url: spec.url,
      secret: value,
      scheme,
      filter: eventFilter(spec.events),
      since: created ? new Date(created) : undefined,
      cursorKey: (repo) => webhookCursorKey(repo, uid),
      logKey: (repo) => webhookDeliveriesKey(repo, uid),
    }),
  };
}

/** The repository `hook` names, or `undefined` when it is no valid `owner/name` (the schema makes that rare). */
export function webhookRepository(hook: RepositoryWebhook): string | undefined {
  try {
    return parseRepoPath(hook.spec.repository).full;
  } catch {
    return undefined;
  }
}
