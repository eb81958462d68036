// The raw answer of `GET /blob/{rest}` (`?raw=1`, or an `Accept` preferring the bytes): the file itself, streamed
// from git to the socket, never held in memory. Its type is guessed from its first 8000 bytes (git's own test for
// binary: a NUL there; we also call bytes that are not UTF-8 binary): `text/plain; charset=utf-8` or
// `application/octet-stream`, never a type a browser would run (HTML, SVG, JavaScript), and with `nosniff`, a CSP
// that forbids everything plus a sandbox, and a `Content-Disposition`, as GitHub's raw host answers, so a file a
// tenant committed cannot run as a page of this origin.
import { PassThrough, Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { streamBlob } from '../plumbing/read/read-blob.ts';

/** Bytes looked at to tell text from binary (git's `buffer_is_binary`). */
export const SNIFF_BYTES = 8000;

export const RAW_TEXT = 'text/plain; charset=utf-8';
export const RAW_BINARY = 'application/octet-stream';
/** Nothing loads, nothing runs, no same-origin access, even if a browser rendered the bytes as a page. */
export const RAW_CSP = "default-src 'none'; sandbox";

/**
 * Whether the bytes beginning a file look like text: no NUL, and UTF-8. `whole`: they are the whole file; else
 * a multi-byte character cut at the end of the window is not held against it.
 */
export function looksLikeText(head: Uint8Array, whole: boolean): boolean {
  if (head.subarray(0, SNIFF_BYTES).includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, SNIFF_BYTES), { stream: !whole });
    return true;
  } catch {
    return false;
  }
}

/** `Content-Disposition` naming the file (RFC 6266: an ASCII fallback and the UTF-8 name). */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The first `n` bytes of `stream` (fewer when it ends first), and a stream of all its bytes, those included, to
 * send in its place. Ending the returned stream early (a client gone) destroys `stream`.
 */
export async function peek(stream: Readable, n: number): Promise<{ head: Buffer; body: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const seen: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < n && !done) {
    const next = await chunks.next();
    if (next.done) done = true;
    else {
      seen.push(next.value);
      length += next.value.length;
    }
  }
  async function* all(): AsyncGenerator<Buffer> {
    try {
      yield* seen;
      for (let next = done ? undefined : await chunks.next(); next && !next.done; next = await chunks.next()) yield next.value;
    } finally {
      await chunks.return?.();
    }
  }
  return { head: Buffer.concat(seen).subarray(0, n), body: Readable.from(all(), { objectMode: false }) };
}

/** The types the raw bytes can be answered as, the guessed one first, for a file beginning with `head`. */
export function rawTypes(head: Uint8Array, whole: boolean): readonly string[] {
  return looksLikeText(head, whole) ? ['text/plain', 'application/octet-stream'] : ['application/octet-stream'];
}

/** A blob being streamed from git: its first bytes are known (and the types they allow); not sent yet. */
export interface OpenBlob {
  /** The types its bytes can be answered as, the guessed one first. */
  readonly offers: readonly string[];
  /** Answers the bytes as `type` (one of `offers`); resolves once git has written them all. */
  send(reply: FastifyReply, type: string, name: string): Promise<void>;
  /** Stops git; nothing is sent. */
  cancel(): Promise<void>;
}

/** Starts streaming blob `sha` (`size` bytes) of the repository at `dir`, and reads its first bytes. */
export async function openBlob(dir: string, sha: string, size: number): Promise<OpenBlob> {
  const out = new PassThrough();
  const streamed = streamBlob(dir, sha, out).then(
    () => out.end(),
    (error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  const cancel = async () => {
    out.destroy();
    await streamed;
  };
  let peeked: { head: Buffer; body: Readable };
  try {
    peeked = await peek(out, SNIFF_BYTES);
  } catch (error) {
    await cancel();
    throw error;
  }
  return {
    offers: rawTypes(peeked.head, size <= SNIFF_BYTES),
    cancel,
    async send(reply, type, name) {
      const text = type === 'text/plain';
      void reply
        .type(text ? RAW_TEXT : RAW_BINARY)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', RAW_CSP)
        .header('content-disposition', contentDisposition(text ? 'inline' : 'attachment', name))
        .header('content-length', String(size))
        .send(peeked.body);
      await streamed;
    },
  };
}
