// Posting one batch to a target, with the limits that keep a slow or hostile receiver from hurting the bridge:
// the target's host is resolved and every address checked against the deny-list before anything is sent, and the
// connection goes to exactly those addresses (no second lookup a DNS rebinding could answer differently); the
// answer must come within the time-out; redirects are not followed; at most a small part of the answer's body
// is read, then the connection is dropped.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { DeliveryTarget } from './delivery-target.ts';
import { targetHeaders } from './signing.ts';
import { TargetPolicy, TargetRefusedError } from '../../src/target-policy.ts';

/** The spec's webhook answer time-out. */
export const ANSWER_TIMEOUT_MS = 10_000;
/** Bytes of an answer's body read at most; the rest is never read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** How one post ended. Only `delivered` moves a cursor. */
export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly status: number; readonly durationMs: number; readonly responseBytes: number }
  /** Answered, but not 2xx (a redirect included: it is not followed). */
  | { readonly kind: 'rejected'; readonly status: number; readonly durationMs: number; readonly responseBytes: number }
  | { readonly kind: 'timeout'; readonly durationMs: number }
  /** Not resolvable, refused, reset: no answer. */
  | { readonly kind: 'unreachable'; readonly reason: string; readonly durationMs: number }
  /** The deny-list refused the target's addresses; nothing was sent. */
  | { readonly kind: 'refused_target'; readonly reason: string; readonly durationMs: number }
  /** The caller gave up (the bridge is draining) before an answer. */
  | { readonly kind: 'aborted'; readonly durationMs: number };

/** One line for logs and error answers. Never holds the secret, the signature or the body. */
export function describeOutcome(outcome: DeliveryOutcome, timeoutMs = ANSWER_TIMEOUT_MS): string {
  switch (outcome.kind) {
    case 'delivered':
    case 'rejected':
      return `the webhook answered ${outcome.status}`;
    case 'timeout':
      return `the webhook did not answer within ${timeoutMs} ms`;
    case 'unreachable':
      return `the webhook is unreachable (${outcome.reason})`;
    case 'refused_target':
      return `delivery refused: ${outcome.reason}`;
    case 'aborted':
      return 'the delivery was abandoned (shutting down)';
  }
}

export interface DeliveryClientOptions {
  /** No answer (status line) within this: `timeout`. Default {@link ANSWER_TIMEOUT_MS}; tests pass less. */
  readonly answerTimeoutMs?: number;
  /** Default {@link MAX_RESPONSE_BYTES}. */
  readonly maxResponseBytes?: number;
  /** Where deliveries may go. Default: the internal ranges are refused. */
  readonly policy?: TargetPolicy;
  /** Resolves a host name to every address (tests stand in for DNS). Default: the system resolver. */
  readonly resolve?: (host: string) => Promise<readonly LookupAddress[]>;
}

const systemResolve = (host: string) => dnsLookup(host, { all: true, order: 'verbatim' });

export class DeliveryClient {
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #policy: TargetPolicy;
  readonly #resolve: (host: string) => Promise<readonly LookupAddress[]>;
  readonly #agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  constructor(options: DeliveryClientOptions = {}) {
    this.#timeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.#maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#policy = options.policy ?? new TargetPolicy();
    this.#resolve = options.resolve ?? systemResolve;
  }

  get answerTimeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Posts `body` (a JSON array of events) to `target`, signed with its secret. Never throws. */
  async post(target: DeliveryTarget, body: Uint8Array, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    const stop = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    const gaveUp = (): DeliveryOutcome | undefined =>
      signal?.aborted ? { kind: 'aborted', durationMs: durationMs() } : timeout.signal.aborted ? { kind: 'timeout', durationMs: durationMs() } : undefined;
    try {
      const url = new URL(target.url);
      let addresses: readonly LookupAddress[];
      try {
        addresses = await this.#addresses(url, stop);
      } catch (err) {
        if (err instanceof TargetRefusedError) return { kind: 'refused_target', reason: err.message, durationMs: durationMs() };
        return gaveUp() ?? { kind: 'unreachable', reason: `cannot resolve ${url.hostname}: ${errorCode(err)}`, durationMs: durationMs() };
      }
      try {
        const { status, bytes } = await this.#exchange(url, addresses, body, targetHeaders(target, body), stop);
        return { kind: status >= 200 && status < 300 ? 'delivered' : 'rejected', status, durationMs: durationMs(), responseBytes: bytes };
      } catch (err) {
        return gaveUp() ?? { kind: 'unreachable', reason: errorCode(err), durationMs: durationMs() };
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Why deliveries to `target` would be refused now (its addresses), or `undefined` when they may go. */
  async refusal(target: DeliveryTarget): Promise<string | undefined> {
    try {
      await this.#addresses(new URL(target.url), AbortSignal.timeout(this.#timeoutMs));
      return undefined;
    } catch (err) {
      return err instanceof TargetRefusedError ? err.message : undefined;
    }
  }

  /** Every address of the URL's host, checked; throws `TargetRefusedError`, or what resolving threw. */
  async #addresses(url: URL, signal: AbortSignal): Promise<readonly LookupAddress[]> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await untilAborted(this.#resolve(host), signal);
    this.#policy.check(
      host,
      addresses.map((a) => a.address),
    );
    return addresses;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  // One request to the checked addresses; resolves with the status once the body is read (up to the cap), or
  // once the status is known and the exchange stops (the cap, a time-out or an abort after the status).
  #exchange(url: URL, addresses: readonly LookupAddress[], body: Uint8Array, headers: Record<string, string>, signal: AbortSignal): Promise<{ status: number; bytes: number }> {
    const lookup: LookupFunction = (_host, options, callback) => {
      const first = addresses[0] as LookupAddress;
      if (options.all) callback(null, [...addresses]);
      else callback(null, first.address, first.family);
    };
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.byteLength), 'user-agent': 'cw-git-events/1' },
        agent: secure ? this.#agents.https : this.#agents.http,
        lookup,
        signal,
      });
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        let bytes = 0;
        const done = () => resolve({ status, bytes });
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes >= this.#maxBytes) {
            response.destroy();
            done();
          }
        });
        response.once('end', done);
        response.once('close', done);
        response.once('error', done);
      });
      request.once('error', reject);
      request.end(body);
    });
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}
