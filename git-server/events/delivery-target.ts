// A delivery target: where one stream of a repository's events goes, with its own cursor. The spec's one webhook
// (`events.webhook_url`), and the per-repository webhooks declared as `RepositoryWebhook` resources, which add a
// signature scheme, an event filter and a start time.
import { eventsCursorKey } from '../../src/repo-store/layout.ts';
import type { RepoPath } from '../../src/repo-store/repo-path.ts';
import type { EventFilter } from './event-filter.ts';

/** `service`: the spec's `X-Service-Signature`; `standard-webhooks`: www.standardwebhooks.com (standard-webhooks.ts). */
export type SignatureScheme = 'service' | 'standard-webhooks';

export interface DeliveryTarget {
  /** Stable name in logs (never the URL's secret parts: a webhook URL carries no credentials). */
  readonly id: string;
  /** An absolute http(s) URL without credentials. */
  readonly url: string;
  /** The HMAC key (`whsec_…` for standard-webhooks); none, no signature. Never logged: not an enumerable property. */
  readonly secret?: string;
  /** How posts are signed. Default `service`. */
  readonly scheme?: SignatureScheme;
  /** Which events the target receives. Default: all. */
  readonly filter?: EventFilter;
  /**
   * Where a target without a cursor starts: at the first entry written at or after this time. Default: the first
   * kept entry (the spec's webhook, set up later, receives what the log still holds).
   */
  readonly since?: Date;
  /** Where this target's cursor in `repo` lives in the bucket. */
  cursorKey(repo: RepoPath): string;
  /** Where its delivery log in `repo` lives (delivery-log.ts); absent: its deliveries are not recorded. */
  logKey?(repo: RepoPath): string;
}

export interface DeliveryTargetOptions {
  readonly id: string;
  readonly url: string;
  readonly secret?: string | undefined;
  readonly scheme?: SignatureScheme | undefined;
  readonly filter?: EventFilter | undefined;
  readonly since?: Date | undefined;
  readonly cursorKey: (repo: RepoPath) => string;
  readonly logKey?: ((repo: RepoPath) => string) | undefined;
}

/**
 * A target whose `secret` is not enumerable, so logging or serialising the target (a log line with
 * `{ target }`, a JSON dump) cannot show it.
 */
export function deliveryTarget(options: DeliveryTargetOptions): DeliveryTarget {
  const target = {
    id: options.id,
    url: options.url,
    cursorKey: options.cursorKey,
    ...(options.scheme ? { scheme: options.scheme } : {}),
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.since ? { since: options.since } : {}),
    ...(options.logKey ? { logKey: options.logKey } : {}),
  };
  if (options.secret) Object.defineProperty(target, 'secret', { value: options.secret, enumerable: false });
  return target;
}

/** The spec's webhook: `events.webhook_url`, signed with `events.webhook_secret`, cursor at `events/cursor.json`. */
export function configuredWebhook(url: string, secret: string | undefined): DeliveryTarget {
  return deliveryTarget({ id: 'webhook', url, secret, cursorKey: eventsCursorKey });
}
