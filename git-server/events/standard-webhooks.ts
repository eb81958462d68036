// The Standard Webhooks signature scheme (www.standardwebhooks.com), selectable per repository webhook: a
// timestamped signature a receiver can refuse replays with. Headers `webhook-id` (the delivery id, the same on
// every retry and redelivery), `webhook-timestamp` (the attempt's Unix seconds) and `webhook-signature`
// (`v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`). The key is the base64 after `whsec_`, as
// every Standard Webhooks library reads it, 24 to 64 bytes as the specification asks.
import { createHmac } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The specification's bounds of a symmetric key: at least 24 bytes (192 bits), at most 512 bits. */
export const MIN_KEY_BYTES = 24;
export const MAX_KEY_BYTES = 64;

/**
 * The HMAC key of a `whsec_<base64>` secret (the prefix may be left out, as the libraries allow), or why it is
 * none. The reason never quotes the secret.
 */
export function standardWebhookKey(secret: string): { key: Buffer } | { invalid: string } {
  const encoded = (secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret).trim();
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return { invalid: 'it is not whsec_ followed by base64' };
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) return { invalid: `its key is ${key.length} bytes, not ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES}` };
  return { key };
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function standardWebhookSignature(key: Buffer, id: string, timestamp: number, body: Uint8Array | string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** The three headers of one attempt at `now`. */
export function standardWebhookHeaders(key: Buffer, id: string, body: Uint8Array, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { [WEBHOOK_ID_HEADER]: id, [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp), [WEBHOOK_SIGNATURE_HEADER]: standardWebhookSignature(key, id, timestamp, body) };
}
