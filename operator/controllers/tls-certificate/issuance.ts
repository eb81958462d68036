import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { AcmeAuthorization, AcmeClient, AcmeOrder } from '../../acme/client.ts';
import { certificateRequestFor, chainOf, newCertificateKey, renewalCertId } from '../../acme/csr.ts';
import { dns01Value, keyAuthorization } from '../../acme/jws.ts';
import type { Dns01Answers } from './dns01-records.ts';
import { AcmeProblem } from '../../acme/problem.ts';
import type { Http01Challenge, TlsCertificate, TlsCertificateStatus } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { certificateObjectKey, orderKeyObjectKey, type StoredCertificate, type StoredOrderKey } from '../../../src/tls/certificate-objects.ts';
import type { SealedStore } from '../../../src/tls/sealed-store.ts';
import { backoffMs, failureOf, failureOfError, type OrderFailure } from './failures.ts';
import { lastThird, RENEWAL_INFO_RETRY_MS, renewalInfoRecheck, renewalTime } from './renewal.ts';
import { SelfWaits } from './self-waits.ts';

/** How soon an order in progress is looked at again when the CA names no `Retry-After`. */
export const POLL_MS = 1000;

/** One step of an order: the status to write, when to come back, and what to do once the status is written. */
export interface Step {
  readonly status: TlsCertificateStatus;
  readonly requeueAfterMs?: number;
  /** Clean-up that must follow the status write (deleting what the old status named), never precede it. */
  readonly after?: () => Promise<void>;
  /** An Event for what happened, if it is worth one. */
  readonly event?: { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };
}

export interface IssuanceDeps {
  readonly acme: () => Promise<AcmeClient>;
  readonly sealed: SealedStore;
  /**
   * Whether the platform answers an HTTP-01 challenge on the name yet (cw-runtime learns it from the status
   * through its informer): asked before telling the CA to validate, so a slow propagation costs a poll, not a
   * failed authorization. Absent: the challenge is answered one step after it is published.
   */
  readonly http01Ready?: (challenge: Http01Challenge) => Promise<boolean>;
  /** DNS-01 answers as TXT records in project domains; absent: dns-01 certificates fail with the reason. */
  readonly dns01?: Dns01Answers;
  /** Takes a new-order token for the certificate's project: 0, or milliseconds until one is free. */
  readonly takeOrder: (project: string) => number;
  readonly profile?: string;
  readonly now: () => Date;
}

/**
 * The ACME order of one TlsCertificate, one exchange (or a few) per reconcile: every step reads the order from
 * the CA and writes what it learnt into the status, so an operator killed at any point resumes from
 * `status.order.url`, and a key made for a finalize is sealed in the bucket before the CA sees its CSR.
 */
export class Issuance {
  readonly #deps: IssuanceDeps;
  readonly #selfWaits = new SelfWaits(POLL_MS);

  constructor(deps: IssuanceDeps) {
    this.#deps = deps;
  }

  /** The next step for a certificate that needs an order (none yet, names changed, or renewal due). */
  async step(cert: TlsCertificate): Promise<Step> {
    const status = cert.status ?? {};
    const names = [...cert.spec.dnsNames];
    try {
      const order = status.order;
      if (!order || !sameNames(order.dnsNames, names) || (order.expires && Date.parse(order.expires) <= this.#deps.now().getTime())) return await this.#newOrder(cert, names);
      const acme = await this.#deps.acme();
      const current = await acme.order(order.url);
      if (current.status !== 'pending') this.#selfWaits.done(order.url);
      switch (current.status) {
        case 'pending':
          return await this.#authorize(cert, acme, current);
        case 'ready':
          return await this.#finalize(cert, acme, current);
        case 'processing':
          return { status, requeueAfterMs: pollMs(current.retryAfterSeconds) };
        case 'valid':
          return await this.#store(cert, acme, current);
        case 'invalid':
          return this.failed(cert, await this.#whyInvalid(acme, current));
      }
    } catch (err) {
      // The order itself gone (404), or malformed: start again; anything else is retried with back-off.
      if (err instanceof AcmeProblem && (err.status === 404 || err.kind === 'malformed') && status.order) return { status: withoutOrder(status), requeueAfterMs: POLL_MS };
      return this.failed(cert, failureOfError(err, 'The CA could not be reached'));
    }
  }

  async #newOrder(cert: TlsCertificate, names: string[]): Promise<Step> {
    const status = cert.status ?? {};
    const wait = this.#deps.takeOrder(cert.metadata?.namespace ?? '');
    if (wait > 0) return { status, requeueAfterMs: wait };
    const acme = await this.#deps.acme();
    const profile = cert.spec.profile ?? this.#deps.profile;
    // Renewing replaces the served certificate (RFC 9773 §5): the CA may then exempt it from rate limits.
    const renewing = status.serial !== undefined && sameNames(status.dnsNames ?? [], names);
    const order = await acme.newOrder(names, { ...(profile ? { profile } : {}), ...(renewing && status.certId ? { replaces: status.certId } : {}) });
    return {
      status: {
        ...withoutOrder(status),
        state: status.serial ? 'Renewing' : 'Issuing',
        order: { url: order.url, dnsNames: names, ...(order.expires ? { expires: order.expires } : {}) },
      },
      requeueAfterMs: 0,
      event: { type: 'Normal', reason: 'Ordering', message: `Ordered a certificate for ${names.join(', ')}` },
    };
  }

  /** Publishes each pending authorization's challenge, and tells the CA to validate those the platform answers. */
  async #authorize(cert: TlsCertificate, acme: AcmeClient, order: AcmeOrder): Promise<Step> {
    const status = cert.status ?? {};
    const type = cert.spec.challenge ?? 'http-01';
    if (type === 'dns-01') return this.#authorizeDns01(cert, acme, order);
    let http01 = [...(status.http01 ?? [])];
    const responded = new Set(status.order?.responded ?? []);
    let wait = POLL_MS;
    let waitingOnUs = false;
    for (const url of order.authorizations) {
      const authz: AcmeAuthorization = await acme.authorization(url);
      if (authz.status === 'valid') continue;
      if (authz.status !== 'pending') return this.failed(cert, whyAuthorizationFailed(authz));
      const challenge = authz.challenges.find((c) => c.type === type);
      if (!challenge) return this.failed(cert, { reason: 'ChallengeUnavailable', message: `The CA offers no ${type} challenge for ${authz.identifier.value}.` });
      if (challenge.status === 'invalid') return this.failed(cert, whyAuthorizationFailed(authz));
      const answer: Http01Challenge = { dnsName: authz.identifier.value, token: challenge.token, keyAuthorization: keyAuthorization(challenge.token, acme.accountKey) };
      const published = (status.http01 ?? []).some((c) => c.token === answer.token && c.dnsName === answer.dnsName);
      if (!published) {
        http01 = [...http01.filter((c) => c.dnsName !== answer.dnsName), answer];
        continue;
      }
      if (responded.has(challenge.url) || challenge.status === 'processing') {
        wait = Math.max(wait, pollMs(authz.retryAfterSeconds));
        continue;
      }
      if (this.#deps.http01Ready && !(await this.#deps.http01Ready(answer))) {
        waitingOnUs = true;
        continue;
      }
      await acme.respond(challenge.url);
      responded.add(challenge.url);
    }
    const next: TlsCertificateStatus = { ...status, http01, ...(status.order ? { order: { ...status.order, responded: [...responded] } } : {}) };
    return { status: next, requeueAfterMs: this.#waitOn(order.url, waitingOnUs, wait) };
  }

  /** Publishes the TXT records of the pending authorizations, and tells the CA to validate once the zone has them all. */
  async #authorizeDns01(cert: TlsCertificate, acme: AcmeClient, order: AcmeOrder): Promise<Step> {
    const status = cert.status ?? {};
    const dns = this.#deps.dns01;
    if (!dns) return this.failed(cert, { reason: 'ChallengeUnsupported', message: 'This installation has no DNS provider for dns-01 challenges; use http-01.' });
    const target = dns.zoneFor(cert, this.#deps.now());
    if ('problem' in target) return this.failed(cert, { reason: 'DomainNotReady', message: target.problem });
    const responded = new Set(status.order?.responded ?? []);
    const pending: { url: string; fqdn: string; value: string }[] = [];
    let wait = POLL_MS;
    for (const url of order.authorizations) {
      const authz = await acme.authorization(url);
      if (authz.status === 'valid') continue;
      if (authz.status !== 'pending') return this.failed(cert, whyAuthorizationFailed(authz));
      const challenge = authz.challenges.find((c) => c.type === 'dns-01');
      if (!challenge) return this.failed(cert, { reason: 'ChallengeUnavailable', message: `The CA offers no dns-01 challenge for ${authz.identifier.value}.` });
      if (challenge.status === 'invalid') return this.failed(cert, whyAuthorizationFailed(authz));
      // Processing: the CA has our answer already, though the status that recorded it may have been lost (a
      // write refused as stale); answered again, the CA would refuse it as malformed and the order be dropped.
      if (challenge.status === 'processing') responded.add(challenge.url);
      if (responded.has(challenge.url)) wait = Math.max(wait, pollMs(authz.retryAfterSeconds));
      pending.push({ url: challenge.url, fqdn: `_acme-challenge.${authz.identifier.value}`, value: dns01Value(challenge.token, acme.accountKey) });
    }
    // A name and its wildcard share one TXT name: both values go in one record set.
    const byName = new Map<string, string[]>();
    for (const p of pending) byName.set(p.fqdn, [...(byName.get(p.fqdn) ?? []), p.value]);
    let published = true;
    for (const [fqdn, values] of byName) published = (await target.zone.publish(fqdn, values)) && published;
    if (published) {
      for (const p of pending) {
        if (responded.has(p.url)) continue;
        await acme.respond(p.url);
        responded.add(p.url);
      }
    }
    return { status: { ...status, ...(status.order ? { order: { ...status.order, responded: [...responded] } } : {}) }, requeueAfterMs: this.#waitOn(order.url, !published, wait) };
  }

  /** When to look at an order again: `wait`, or longer the longer it has waited on the platform's own side. */
  #waitOn(order: string, waitingOnUs: boolean, wait: number): number {
    if (!waitingOnUs) {
      this.#selfWaits.done(order);
      return wait;
    }
    return Math.max(wait, this.#selfWaits.wait(order, this.#deps.now().getTime()));
  }

  /** Seals a key for the order (or finds the one sealed before a restart) and sends its CSR. */
  async #finalize(cert: TlsCertificate, acme: AcmeClient, order: AcmeOrder): Promise<Step> {
    const key = await this.#orderKey(cert, order.url);
    const finalized = await acme.finalize(order, await certificateRequestFor(cert.spec.dnsNames, key.privateKeyPem));
    return { status: cert.status ?? {}, requeueAfterMs: pollMs(finalized.retryAfterSeconds) };
  }

  async #orderKey(cert: TlsCertificate, orderUrl: string): Promise<StoredOrderKey> {
    const objectKey = orderKeyObjectKey(cert.metadata?.namespace ?? '', cert.metadata?.name ?? '', orderUrl);
    const found = await this.#deps.sealed.get<StoredOrderKey>(objectKey);
    if (found) return found;
    await this.#deps.sealed.put(objectKey, { orderUrl, privateKeyPem: newCertificateKey() } satisfies StoredOrderKey, { ifNoneMatch: '*' });
    const sealed = await this.#deps.sealed.get<StoredOrderKey>(objectKey);
    if (!sealed) throw new Error('the order key was written to the bucket but cannot be read back');
    return sealed;
  }

  /** Downloads the certificate, seals it with its key under its serial, and makes it the served one. */
  async #store(cert: TlsCertificate, acme: AcmeClient, order: AcmeOrder): Promise<Step> {
    const namespace = cert.metadata?.namespace ?? '';
    const name = cert.metadata?.name ?? '';
    const status = cert.status ?? {};
    if (!order.certificate) throw new Error('the CA answered a valid order without its certificate URL');
    const orderKey = orderKeyObjectKey(namespace, name, order.url);
    const key = await this.#deps.sealed.get<StoredOrderKey>(orderKey);
    // The key is sealed before the finalize, so this happens only if the bucket lost it: order again.
    if (!key) return { status: withoutOrder(status), requeueAfterMs: 0 };
    const chainPem = await acme.certificate(order.certificate);
    const [leaf] = chainOf(chainPem);
    if (!leaf) throw new Error('the CA answered an empty certificate chain');
    const leafKey = createPublicKey(leaf.toString('pem')).export({ type: 'spki', format: 'der' });
    if (!createPublicKey(createPrivateKey(key.privateKeyPem)).export({ type: 'spki', format: 'der' }).equals(leafKey)) {
      throw new Error('the certificate the CA issued does not carry the key sealed for its order');
    }
    const serial = leaf.serialNumber.toLowerCase();
    const notBefore = leaf.notBefore;
    const notAfter = leaf.notAfter;
    const stored: StoredCertificate = { chainPem, privateKeyPem: key.privateKeyPem, serial, dnsNames: [...cert.spec.dnsNames], notAfter: notAfter.toISOString() };
    await this.#deps.sealed.put(certificateObjectKey(namespace, name, serial), stored);
    const certId = safeCertId(leaf);
    const now = this.#deps.now();
    const ari = certId ? await renewalWindow(acme, certId, now) : undefined;
    const window = ari?.window ?? lastThird(notBefore, notAfter);
    const previous = status.serial;
    const next: TlsCertificateStatus = {
      ...withoutOrder(status),
      state: 'Issued',
      dnsNames: [...cert.spec.dnsNames],
      serial,
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
      issuer: issuerOf(leaf.issuer),
      ...(certId ? { certId } : {}),
      renewalWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
      renewAt: renewalTime(window, now).toISOString(),
      ...(ari ? { renewalCheckAt: ari.recheckAt.toISOString() } : {}),
    };
    delete next.lastError;
    delete next.failures;
    delete next.nextAttemptAt;
    return {
      status: next,
      after: async () => {
        await this.#deps.dns01?.remove(cert);
        await this.#deps.sealed.delete(orderKey);
        if (previous && previous !== serial) await this.#deps.sealed.delete(certificateObjectKey(namespace, name, previous));
      },
      event: { type: 'Normal', reason: 'Issued', message: `Issued a certificate for ${cert.spec.dnsNames.join(', ')} by ${next.issuer}, valid until ${next.notAfter}` },
    };
  }

  async #whyInvalid(acme: AcmeClient, order: AcmeOrder): Promise<OrderFailure> {
    for (const url of order.authorizations) {
      const authz = await acme.authorization(url).catch(() => undefined);
      if (authz && authz.status !== 'valid' && authz.status !== 'pending') return whyAuthorizationFailed(authz);
    }
    return order.error ? failureOf(new AcmeProblem(400, order.error)) : { reason: 'OrderFailed', message: 'The CA marked the order invalid without saying why.' };
  }

  /** A failed order: dropped, with its reason and the back-off before the next one; a served certificate stays served. */
  failed(cert: TlsCertificate, failure: OrderFailure): Step {
    const status = cert.status ?? {};
    if (status.order) this.#selfWaits.done(status.order.url);
    const now = this.#deps.now();
    const failures = (status.failures ?? 0) + 1;
    const next: TlsCertificateStatus = {
      ...withoutOrder(status),
      state: status.serial && status.notAfter && Date.parse(status.notAfter) > now.getTime() ? 'Renewing' : 'Failed',
      lastError: { reason: failure.reason, message: failure.message, at: now.toISOString() },
      failures: Math.min(failures, 1000),
      nextAttemptAt: new Date(now.getTime() + backoffMs(failures, failure.retryAfterMs)).toISOString(),
    };
    return { status: next, after: () => this.#deps.dns01?.remove(cert) ?? Promise.resolve(), event: { type: 'Warning', reason: failure.reason, message: failure.message } };
  }
}

/** The CA's renewal window for the certificate (RFC 9773), or `undefined` when it offers none or fails to answer. */
export async function renewalWindow(acme: AcmeClient, certId: string, now: Date): Promise<RenewalAnswer | undefined> {
  try {
    const info = await acme.renewalInfo(certId);
    return info && { window: { start: info.start, end: info.end }, recheckAt: renewalInfoRecheck(now, info.retryAfterSeconds) };
  } catch {
    // A CA that offers renewal information but failed to answer is asked again later: the window it may
    // move (a revocation, a mass reissue) must not go unheard for the certificate's lifetime.
    return { recheckAt: new Date(now.getTime() + RENEWAL_INFO_RETRY_MS) };
  }
}

/** What the CA's renewal information said: its window and when to ask again, or only when to ask again after a failure. */
export interface RenewalAnswer {
  readonly window?: { readonly start: Date; readonly end: Date };
  readonly recheckAt: Date;
}

function whyAuthorizationFailed(authz: AcmeAuthorization): OrderFailure {
  const failed = authz.challenges.find((c) => c.status === 'invalid' && c.error);
  if (failed?.error) return failureOf(new AcmeProblem(400, failed.error), failed.type);
  return { reason: 'ChallengeFailed', message: `The CA did not validate ${authz.identifier.value} (its authorization is ${authz.status}).` };
}

/** The status without an order in progress (its URL, answers and HTTP-01 challenges). */
export function withoutOrder(status: TlsCertificateStatus): TlsCertificateStatus {
  const next = { ...status };
  delete next.order;
  delete next.http01;
  return next;
}

/** Whether two lists of names hold the same names, in any order. */
export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = [...b].sort();
  return [...a].sort().every((name, i) => name === sorted[i]);
}

function pollMs(retryAfterSeconds: number | undefined): number {
  return retryAfterSeconds === undefined ? POLL_MS : Math.min(Math.max(retryAfterSeconds * 1000, POLL_MS), 60_000);
}

/** The issuer's common name, else its organisation, else the whole name. */
function issuerOf(issuer: string): string {
  const cn = /(?:^|,\s*)CN=([^,]+)/.exec(issuer)?.[1];
  const o = /(?:^|,\s*)O=([^,]+)/.exec(issuer)?.[1];
  return (cn ?? o ?? issuer).slice(0, 256);
}

function safeCertId(leaf: Parameters<typeof renewalCertId>[0]): string | undefined {
  try {
    return renewalCertId(leaf);
  } catch {
    return undefined;
  }
}
