// Reading a `PutBody` whole: what the memory store keeps and what callers hash before a content-addressed write.
import { createHash } from 'node:crypto';
import type { PutBody, StreamBody } from './object-store.ts';

export function isStreamBody(body: PutBody): body is StreamBody {
  return typeof body === 'object' && !(body instanceof Uint8Array);
}

/** The body's length in bytes. */
export function bodyLength(body: PutBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  return isStreamBody(body) ? body.length : body.byteLength;
}

/** The whole body as bytes (a stream body is read to its end and must have its declared length). */
export async function bodyBytes(body: PutBody): Promise<Uint8Array> {
  if (typeof body === 'string') return Buffer.from(body);
  if (!isStreamBody(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body.open()) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  const bytes = Buffer.concat(chunks);
  if (bytes.byteLength !== body.length) throw new Error(`stream body has ${bytes.byteLength} bytes, declared ${body.length}`);
  return bytes;
}

/** Lowercase hex SHA-256 of the body, streaming a stream body rather than holding it. */
export async function bodySha256(body: PutBody): Promise<string> {
  const hash = createHash('sha256');
  if (isStreamBody(body)) {
    for await (const chunk of body.open()) hash.update(chunk as Uint8Array);
  } else {
    hash.update(body);
  }
  return hash.digest('hex');
}
