// A delivery target: where one stream of a repository's events goes, with its own cursor. Today the spec's one
// webhook (`events.webhook_url`); per-repository webhooks declared as resources are more targets of this shape.
import { eventsCursorKey } from '../repo-store/layout.ts';
import type { RepoPath } from '../repo-store/repo-path.ts';

export interface DeliveryTarget {
  /** Stable name in logs (never the URL's secret parts: a webhook URL carries no credentials). */
  readonly id: string;
  /** An absolute http(s) URL without credentials. */
  readonly url: string;
  /** The HMAC key of `X-Service-Signature`; none, no signature. Never logged: not an enumerable property. */
  readonly secret?: string;
  /** Where this target's cursor in `repo` lives in the bucket. */
  cursorKey(repo: RepoPath): string;
}

/**
 * A target whose `secret` is not enumerable, so logging or serialising the target (a log line with
 * `{ target }`, a JSON dump) cannot show it.
 */
export function deliveryTarget(options: { id: string; url: string; secret?: string | undefined; cursorKey: (repo: RepoPath) => string }): DeliveryTarget {
  const target = { id: options.id, url: options.url, cursorKey: options.cursorKey };
  if (options.secret) Object.defineProperty(target, 'secret', { value: options.secret, enumerable: false });
  return target;
}

/** The spec's webhook: `events.webhook_url`, signed with `events.webhook_secret`, cursor at `events/cursor.json`. */
export function configuredWebhook(url: string, secret: string | undefined): DeliveryTarget {
  return deliveryTarget({ id: 'webhook', url, secret, cursorKey: eventsCursorKey });
}
