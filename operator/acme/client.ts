import { Agent, fetch, type Response } from 'undici';
import { base64url, externalAccountBinding, signJws, type AccountKey } from './jws.ts';
import { AcmeProblem } from './problem.ts';

/** What a directory names (RFC 8555 §7.1.1), with RFC 9773's `renewalInfo` and the profiles extension. */
export interface AcmeDirectory {
  readonly newNonce: string;
  readonly newAccount: string;
  readonly newOrder: string;
  readonly revokeCert: string;
  readonly renewalInfo?: string;
  readonly meta?: {
    readonly termsOfService?: string;
    readonly externalAccountRequired?: boolean;
    readonly caaIdentities?: readonly string[];
    readonly profiles?: Readonly<Record<string, string>>;
  };
}

export type OrderStatus = 'pending' | 'ready' | 'processing' | 'valid' | 'invalid';

export interface AcmeOrder {
  readonly url: string;
  readonly status: OrderStatus;
  readonly expires?: string;
  readonly identifiers: ReadonlyArray<{ readonly type: string; readonly value: string }>;
  readonly authorizations: readonly string[];
  readonly finalize: string;
  readonly certificate?: string;
  readonly profile?: string;
  readonly error?: unknown;
  /** How long the server asks a poll of this order to wait (`Retry-After`), when it says. */
  readonly retryAfterSeconds?: number;
}

export interface AcmeChallenge {
  readonly type: string;
  readonly url: string;
  readonly status: 'pending' | 'processing' | 'valid' | 'invalid';
  readonly token: string;
  readonly error?: unknown;
}

export interface AcmeAuthorization {
  readonly url: string;
  readonly status: 'pending' | 'valid' | 'invalid' | 'deactivated' | 'expired' | 'revoked';
  readonly identifier: { readonly type: string; readonly value: string };
  readonly wildcard?: boolean;
  readonly challenges: readonly AcmeChallenge[];
  readonly retryAfterSeconds?: number;
}

/** RFC 9773: when the CA suggests renewing a certificate. */
export interface RenewalInfo {
  readonly start: Date;
  readonly end: Date;
  readonly explanationUrl?: string;
  /** When to ask again (`Retry-After`), seconds. */
  readonly retryAfterSeconds?: number;
}

export interface AcmeClientOptions {
  readonly directoryUrl: string;
  readonly accountKey: AccountKey;
  /** The account's URL once registered (its `kid`); `account()` finds or makes it otherwise. */
  readonly accountUrl?: string;
  /** PEM roots to trust for the CA's own TLS besides the system's (a private CA, Pebble in tests). */
  readonly caCertificates?: string;
  /** Each request's bound; default 30 s. */
  readonly timeoutMs?: number;
}

/** A JSON answer or a certificate chain is never larger than this. */
const MAX_RESPONSE_BYTES = 1 << 20;
/**
 * A badNonce refusal is retried this often with the fresh nonce it carries (RFC 8555 §6.5): a retry costs one
 * round trip, and a CA may refuse a good nonce now and then (Pebble a set share of them, at random).
 */
const BAD_NONCE_RETRIES = 8;

/**
 * An RFC 8555 client: one account, its requests signed with ES256, nonces kept from each answer, `badNonce`
 * retried, every answer bounded in size and time. It polls nothing itself: each call is one exchange and
 * answers what the server said (with its `Retry-After`), so a controller keeps the order's state between its
 * reconciles and a restart resumes from the order's URL.
 */
export class AcmeClient {
  readonly #options: AcmeClientOptions;
  readonly #dispatcher: Agent;
  #directory: AcmeDirectory | undefined;
  #nonce: string | undefined;
  #accountUrl: string | undefined;

  constructor(options: AcmeClientOptions) {
    this.#options = options;
    this.#accountUrl = options.accountUrl;
    this.#dispatcher = new Agent({ connect: options.caCertificates ? { ca: options.caCertificates } : {}, connections: 4 });
  }

  get accountUrl(): string | undefined {
    return this.#accountUrl;
  }

  /** The account key: challenges' key authorizations are made with it. */
  get accountKey(): AccountKey {
    return this.#options.accountKey;
  }

  async directory(): Promise<AcmeDirectory> {
    if (!this.#directory) {
      const response = await this.#fetch(this.#options.directoryUrl, { method: 'GET' });
      this.#directory = (await this.#json(response)) as AcmeDirectory;
    }
    return this.#directory;
  }

  /**
   * Registers the account, or finds it when the key has one already (the CA answers 200 with its URL):
   * idempotent, so a controller calls it on every start. `externalAccountBinding` for CAs that require it.
   */
  async account(request: { readonly contact?: readonly string[]; readonly externalAccountBinding?: { readonly keyId: string; readonly hmacKey: string } } = {}): Promise<string> {
    const directory = await this.directory();
    const payload = {
      termsOfServiceAgreed: true,
      ...(request.contact?.length ? { contact: request.contact } : {}),
      ...(request.externalAccountBinding ? { externalAccountBinding: externalAccountBinding(this.#options.accountKey, request.externalAccountBinding, directory.newAccount) } : {}),
    };
    const response = await this.#post(directory.newAccount, payload, { useJwk: true });
    const location = response.headers.get('location');
    await this.#json(response);
    if (!location) throw new Error('the ACME server answered newAccount without the account URL (Location)');
    this.#accountUrl = location;
    return location;
  }

  /** A new order for `names` (DNS identifiers), with a profile the CA offers and the certificate it replaces (RFC 9773 §5). */
  async newOrder(names: readonly string[], options: { readonly profile?: string; readonly replaces?: string } = {}): Promise<AcmeOrder> {
    const directory = await this.directory();
    const payload = {
      identifiers: names.map((value) => ({ type: 'dns', value })),
      ...(options.profile ? { profile: options.profile } : {}),
      ...(options.replaces ? { replaces: options.replaces } : {}),
    };
    const response = await this.#post(directory.newOrder, payload);
    const url = response.headers.get('location');
    if (!url) throw new Error('the ACME server answered newOrder without the order URL (Location)');
    return { ...((await this.#json(response)) as Omit<AcmeOrder, 'url'>), url, ...retryAfter(response) };
  }

  async order(url: string): Promise<AcmeOrder> {
    const response = await this.#post(url, undefined);
    return { ...((await this.#json(response)) as Omit<AcmeOrder, 'url'>), url, ...retryAfter(response) };
  }

  async authorization(url: string): Promise<AcmeAuthorization> {
    const response = await this.#post(url, undefined);
    return { ...((await this.#json(response)) as Omit<AcmeAuthorization, 'url'>), url, ...retryAfter(response) };
  }

  /** Gives up a valid or pending authorization (RFC 8555 §7.5.2): the next order for its name is validated afresh. */
  async deactivateAuthorization(url: string): Promise<AcmeAuthorization> {
    const response = await this.#post(url, { status: 'deactivated' });
    return { ...((await this.#json(response)) as Omit<AcmeAuthorization, 'url'>), url };
  }

  /** Tells the CA the challenge is ready to be validated (an empty object, RFC 8555 §7.5.1). */
  async respond(challengeUrl: string): Promise<AcmeChallenge> {
    const response = await this.#post(challengeUrl, {});
    return (await this.#json(response)) as AcmeChallenge;
  }

  /** Sends the CSR (DER) of a `ready` order; the order comes back `processing` or `valid`. */
  async finalize(order: AcmeOrder, csrDer: Uint8Array): Promise<AcmeOrder> {
    const response = await this.#post(order.finalize, { csr: base64url(csrDer) });
    return { ...((await this.#json(response)) as Omit<AcmeOrder, 'url'>), url: order.url, ...retryAfter(response) };
  }

  /** The certificate chain of a `valid` order, PEM, leaf first. */
  async certificate(url: string): Promise<string> {
    const response = await this.#post(url, undefined, { accept: 'application/pem-certificate-chain' });
    const text = await this.#text(response);
    if (!text.startsWith('-----BEGIN CERTIFICATE-----')) throw new Error('the ACME server answered the certificate URL with something other than a PEM chain');
    return text;
  }

  /** RFC 9773: the CA's suggested renewal window for the certificate with ARI identifier `certId`; `undefined` when the CA offers no ARI. */
  async renewalInfo(certId: string): Promise<RenewalInfo | undefined> {
    const base = (await this.directory()).renewalInfo;
    if (!base) return undefined;
    const response = await this.#fetch(`${base.replace(/\/$/, '')}/${certId}`, { method: 'GET' });
    const body = (await this.#json(response)) as { suggestedWindow?: { start?: string; end?: string }; explanationURL?: string };
    const start = new Date(body.suggestedWindow?.start ?? '');
    const end = new Date(body.suggestedWindow?.end ?? '');
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end < start) throw new Error('the ACME server answered renewalInfo without a valid suggestedWindow');
    return { start, end, ...(body.explanationURL ? { explanationUrl: body.explanationURL } : {}), ...retryAfter(response) };
  }

  /** Revokes a certificate (DER) this account ordered; `reason` an RFC 5280 code (0 unspecified, 4 superseded, 5 cessationOfOperation). */
  async revoke(certificateDer: Uint8Array, reason = 0): Promise<void> {
    const response = await this.#post((await this.directory()).revokeCert, { certificate: base64url(certificateDer), reason });
    await this.#text(response);
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }

  async #post(url: string, payload: unknown, options: { readonly useJwk?: boolean; readonly accept?: string } = {}): Promise<Response> {
    if (!options.useJwk && !this.#accountUrl) throw new Error('the ACME account is not registered: call account() first');
    for (let attempt = 0; ; attempt++) {
      const nonce = await this.#takeNonce();
      const body = signJws(this.#options.accountKey, { url, nonce, ...(options.useJwk ? {} : { kid: this.#accountUrl }) }, payload);
      const response = await this.#fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/jose+json', ...(options.accept ? { accept: options.accept } : {}) },
        body: JSON.stringify(body),
      });
      if (response.ok) return response;
      const problem = await this.#problem(response);
      if (problem.kind === 'badNonce' && attempt < BAD_NONCE_RETRIES) continue;
      throw problem;
    }
  }

  async #takeNonce(): Promise<string> {
    const kept = this.#nonce;
    this.#nonce = undefined;
    if (kept) return kept;
    // Not kept in the slot as well: it is this request's, and a nonce is good once.
    const response = await this.#fetch((await this.directory()).newNonce, { method: 'HEAD' }, { keepNonce: false });
    await response.body?.cancel();
    const nonce = response.headers.get('replay-nonce');
    if (!nonce) throw new Error('the ACME server answered newNonce without a Replay-Nonce');
    return nonce;
  }

  async #fetch(url: string, init: { method: string; headers?: Record<string, string>; body?: string }, options: { readonly keepNonce?: boolean } = {}): Promise<Response> {
    const response = await fetch(url, { ...init, dispatcher: this.#dispatcher, redirect: 'error', signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000) });
    const nonce = response.headers.get('replay-nonce');
    if (nonce && options.keepNonce !== false) this.#nonce = nonce;
    if (!response.ok && init.method === 'GET') throw await this.#problem(response);
    return response;
  }

  async #problem(response: Response): Promise<AcmeProblem> {
    const text = await this.#text(response).catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { detail: `the ACME server answered ${response.status} ${text.slice(0, 200)}`.trim() };
    }
    return new AcmeProblem(response.status, body, retryAfter(response).retryAfterSeconds);
  }

  async #json(response: Response): Promise<unknown> {
    return JSON.parse(await this.#text(response));
  }

  /** The body as text, refused past {@link MAX_RESPONSE_BYTES}. */
  async #text(response: Response): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > MAX_RESPONSE_BYTES) throw new Error(`the ACME server's answer passed ${MAX_RESPONSE_BYTES} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** A `Retry-After` header as seconds (delta or HTTP date), when present and sensible. */
function retryAfter(response: Response): { retryAfterSeconds?: number } {
  const header = response.headers.get('retry-after');
  if (header === null) return {};
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) && seconds >= 0 ? { retryAfterSeconds: seconds } : {};
}
