// The delivery headers (spec "Delivery"): `X-Service-Delivery` names the batch by the SHA-1 of its body (the
// consumer's per-batch dedup key), `X-Service-Signature` proves the sender knows `events.webhook_secret`.
import { createHash, createHmac } from 'node:crypto';
import type { DeliveryTarget } from './delivery-target.ts';
import { standardWebhookHeaders, standardWebhookKey } from './standard-webhooks.ts';

export const DELIVERY_HEADER = 'x-service-delivery';
export const SIGNATURE_HEADER = 'x-service-signature';

/** The SHA-1 of the body, lowercase hex. */
export function deliveryId(body: Uint8Array | string): string {
  return createHash('sha1').update(body).digest('hex');
}

/** `sha256=` and the lowercase hex HMAC-SHA256 of the body keyed with the secret. */
export function signature(body: Uint8Array | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The headers of one delivery; the signature only when a secret is set. */
export function deliveryHeaders(body: Uint8Array, secret: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    [DELIVERY_HEADER]: deliveryId(body),
    ...(secret ? { [SIGNATURE_HEADER]: signature(body, secret) } : {}),
  };
}

/**
 * The headers of one post to `target` at `now`, by its scheme: the spec's (above), or Standard Webhooks'
 * `webhook-id` (the same delivery id), `webhook-timestamp` and `webhook-signature` beside `X-Service-Delivery`.
 * A standard-webhooks secret that is no `whsec_` key signs nothing (the webhook's status says why before that).
 */
export function targetHeaders(target: Pick<DeliveryTarget, 'secret' | 'scheme'>, body: Uint8Array, now = new Date()): Record<string, string> {
  if (target.scheme !== 'standard-webhooks') return deliveryHeaders(body, target.secret);
  const id = deliveryId(body);
  const key = target.secret ? standardWebhookKey(target.secret) : undefined;
  return { 'content-type': 'application/json', [DELIVERY_HEADER]: id, ...(key && 'key' in key ? standardWebhookHeaders(key.key, id, body, now) : {}) };
}
