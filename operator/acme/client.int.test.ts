// The ACME client against a real CA: Pebble, Let's Encrypt's test server, with validation on (it fetches the
// HTTP-01 answer and looks up the DNS-01 record) and a fifth of its nonces refused, so every exchange also
// goes through the client's badNonce retry.
import { createServer, type Server } from 'node:http';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startPebble, type Pebble } from '../../e2e/harness/pebble.ts';
import { AcmeClient, type AcmeAuthorization, type AcmeOrder } from './client.ts';
import { certificateRequest, chainOf, renewalCertId } from './csr.ts';
import { dns01Value, generateAccountKey, keyAuthorization, type AccountKey } from './jws.ts';
import { AcmeProblem } from './problem.ts';

let pebble: Pebble;
let key: AccountKey;
let client: AcmeClient;
/** HTTP-01 answers by token, served where Pebble looks for them. */
const answers = new Map<string, string>();
let challengeServer: Server;

beforeAll(async () => {
  pebble = await startPebble(inject('stateDir'), { nonceRejectPercent: 20 });
  challengeServer = createServer((req, res) => {
    const token = /^\/\.well-known\/acme-challenge\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    const answer = token && answers.get(token);
    res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain' }).end(answer || '');
  });
  await new Promise<void>((resolve) => challengeServer.listen(pebble.http01Port, '127.0.0.1', resolve));
  key = generateAccountKey();
  client = new AcmeClient({ directoryUrl: pebble.directoryUrl, accountKey: key, caCertificates: pebble.listenerCa });
}, 60_000);

afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => challengeServer?.close(resolve));
  await pebble?.stop();
});

/** Asks the CA again until `done` holds, waiting as long as it says (`Retry-After`), at most `limit` times. */
async function poll<T extends { retryAfterSeconds?: number }>(read: () => Promise<T>, done: (value: T) => boolean, limit = 50): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = await read();
    if (done(value) || attempt >= limit) return value;
    await new Promise((resolve) => setTimeout(resolve, Math.min(value.retryAfterSeconds ?? 0.1, 1) * 1000));
  }
}

/** Validates every authorization of `order` with `type`, `prepare` publishing each answer first. */
async function validate(order: AcmeOrder, type: 'http-01' | 'dns-01', prepare: (authz: AcmeAuthorization, token: string) => Promise<void>): Promise<void> {
  for (const url of order.authorizations) {
    const authz = await client.authorization(url);
    // One the CA reuses from an earlier order is valid already.
    if (authz.status === 'valid') continue;
    const challenge = authz.challenges.find((c) => c.type === type);
    if (!challenge) throw new Error(`no ${type} challenge for ${authz.identifier.value}`);
    await prepare(authz, challenge.token);
    await client.respond(challenge.url);
    const done = await poll(
      () => client.authorization(url),
      (a) => a.status !== 'pending',
    );
    expect(done.status, JSON.stringify(done)).toBe('valid');
  }
}

/** Finalizes a ready order and answers its certificate chain. */
async function issue(order: AcmeOrder, names: string[]): Promise<{ chain: string; privateKeyPem: string }> {
  const ready = await poll(
    () => client.order(order.url),
    (o) => o.status !== 'pending',
  );
  expect(ready.status).toBe('ready');
  const { csrDer, privateKeyPem } = await certificateRequest(names);
  await client.finalize(ready, csrDer);
  const valid = await poll(
    () => client.order(order.url),
    (o) => o.status === 'valid' || o.status === 'invalid',
  );
  expect(valid.status).toBe('valid');
  return { chain: await client.certificate(valid.certificate!), privateKeyPem };
}

describe('the ACME client against Pebble', () => {
  it('registers the account once: asked again with the same key, the CA answers the same account', async () => {
    const url = await client.account({ contact: ['mailto:ops@example.com'] });
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    expect(await client.account()).toBe(url);
  });

  it('issues a certificate through HTTP-01, chained to the CA’s root, for the names asked and the key made', { timeout: 60_000 }, async () => {
    const names = ['shop.http01.test', 'www.shop.http01.test'];
    const order = await client.newOrder(names);
    expect(order.status).toBe('pending');
    await validate(order, 'http-01', async (_authz, token) => void answers.set(token, keyAuthorization(token, key)));
    const { chain, privateKeyPem } = await issue(order, names);
    const [leaf, intermediate] = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((pem) => new X509Certificate(pem));
    expect(leaf!.subjectAltName).toBe('DNS:shop.http01.test, DNS:www.shop.http01.test');
    expect(leaf!.checkPrivateKey((await import('node:crypto')).createPrivateKey(privateKeyPem))).toBe(true);
    expect(leaf!.verify(intermediate!.publicKey)).toBe(true);
    expect(intermediate!.verify(new X509Certificate(await pebble.issuingRoot()).publicKey)).toBe(true);
  });

  it('issues a wildcard through DNS-01, the TXT record looked up by the CA', { timeout: 60_000 }, async () => {
    const order = await client.newOrder(['*.apps.dns01.test']);
    await validate(order, 'dns-01', (authz, token) => pebble.dns.setTxt(`_acme-challenge.${authz.identifier.value}`, dns01Value(token, key)));
    const { chain } = await issue(order, ['*.apps.dns01.test']);
    expect(new X509Certificate(chain).subjectAltName).toBe('DNS:*.apps.dns01.test');
  });

  it('deactivates a valid authorization: the CA no longer counts it, and the next order for the name is validated afresh', { timeout: 60_000 }, async () => {
    const order = await client.newOrder(['again.http01.test']);
    await validate(order, 'http-01', async (_authz, token) => void answers.set(token, keyAuthorization(token, key)));
    const url = order.authorizations[0]!;
    expect((await client.deactivateAuthorization(url)).status).toBe('deactivated');
    expect((await client.authorization(url)).status).toBe('deactivated');
    const next = await client.newOrder(['again.http01.test']);
    expect(next.authorizations).not.toContain(url);
    expect((await client.authorization(next.authorizations[0]!)).status).toBe('pending');
  });

  it('fails an authorization whose answer is wrong, saying why (unauthorized), and the order with it', { timeout: 60_000 }, async () => {
    const order = await client.newOrder(['wrong.http01.test']);
    const authz = await client.authorization(order.authorizations[0]!);
    const challenge = authz.challenges.find((c) => c.type === 'http-01')!;
    answers.set(challenge.token, 'not the key authorization');
    await client.respond(challenge.url);
    const failed = await poll(
      () => client.authorization(authz.url),
      (a) => a.status !== 'pending',
    );
    expect(failed.status).toBe('invalid');
    const error = new AcmeProblem(403, failed.challenges.find((c) => c.type === 'http-01')?.error);
    expect(error.kind).toBe('unauthorized');
    expect((await client.order(order.url)).status).toBe('invalid');
  });

  it('reads the renewal window (RFC 9773) of an issued certificate, follows one the CA moves, and orders its replacement', { timeout: 60_000 }, async () => {
    const names = ['renew.http01.test'];
    const first = await client.newOrder(names);
    await validate(first, 'http-01', async (_authz, token) => void answers.set(token, keyAuthorization(token, key)));
    const { chain } = await issue(first, names);
    const leaf = chainOf(chain)[0]!;
    const certId = renewalCertId(leaf);
    const window = await client.renewalInfo(certId);
    expect(window!.start.getTime()).toBeGreaterThan(leaf.notBefore.getTime());
    expect(window!.end.getTime()).toBeLessThanOrEqual(leaf.notAfter.getTime());
    const now = new Date();
    await pebble.setRenewalWindow(leaf.toString('pem'), { start: new Date(now.getTime() - 60_000), end: new Date(now.getTime() + 60_000) });
    const moved = await client.renewalInfo(certId);
    expect(moved!.start.getTime()).toBeLessThan(now.getTime());
    // The CA records what the new order replaces: once the replacement is issued, another is refused.
    const replacement = await client.newOrder(names, { replaces: certId });
    await validate(replacement, 'http-01', async (_authz, token) => void answers.set(token, keyAuthorization(token, key)));
    await issue(replacement, names);
    // (Pebble marks the original as replaced just after the replacement turns valid.)
    await vi.waitFor(async () => expect(((await client.newOrder(names, { replaces: certId }).catch((err: unknown) => err)) as AcmeProblem).kind).toBe('alreadyReplaced'), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('revokes a certificate it ordered; the CA refuses to revoke it twice (alreadyRevoked)', { timeout: 60_000 }, async () => {
    const names = ['revoke.http01.test'];
    const order = await client.newOrder(names);
    await validate(order, 'http-01', async (_authz, token) => void answers.set(token, keyAuthorization(token, key)));
    const der = new Uint8Array(new X509Certificate((await issue(order, names)).chain).raw);
    await client.revoke(der, 5);
    const again = await client.revoke(der, 5).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(AcmeProblem);
    expect((again as AcmeProblem).kind).toBe('alreadyRevoked');
  });
});
