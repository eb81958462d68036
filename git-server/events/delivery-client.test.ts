// The delivery client against real local HTTP servers: headers and signature, non-2xx and redirects, the answer
// time-out (over the whole post), the response cap, the deny-list (nothing is sent to a refused address) and
// abandoning.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DeliveryClient, describeOutcome } from './delivery-client.ts';
import { configuredWebhook } from './delivery-target.ts';
import { deliveryId, signature } from './signing.ts';
import { TargetPolicy } from '../../src/target-policy.ts';

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function receiver(answer: (req: IncomingMessage, res: ServerResponse, received: Received) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(r);
      answer(req, res, r);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const open = new TargetPolicy({ allowPrivate: true });
const body = Buffer.from('[{"action":"create"}]');

describe('DeliveryClient', () => {
  it('posts the batch with content type, delivery id and signature; a 2xx is delivered', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    const client = new DeliveryClient({ policy: open });
    const outcome = await client.post(configuredWebhook(r.url, 'hook-secret'), body);
    expect(outcome).toMatchObject({ kind: 'delivered', status: 204 });
    expect(r.received[0]?.body).toBe(body.toString());
    expect(r.received[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-delivery': deliveryId(body),
      'x-service-signature': signature(body, 'hook-secret'),
    });
    const unsigned = await client.post(configuredWebhook(r.url, undefined), body);
    expect(unsigned.kind).toBe('delivered');
    expect(r.received[1]?.headers).not.toHaveProperty('x-service-signature');
    client.close();
  });

  it('counts any other answer as not delivered, and never follows a redirect', async () => {
    const elsewhere = await receiver((_req, res) => res.writeHead(200).end());
    const r = await receiver((req, res) => (req.url === '/hook' ? res.writeHead(307, { location: elsewhere.url }).end() : res.writeHead(500).end('no')));
    const client = new DeliveryClient({ policy: open });
    expect(await client.post(configuredWebhook(r.url, undefined), body)).toMatchObject({ kind: 'rejected', status: 307 });
    expect(elsewhere.received).toEqual([]);
    expect(await client.post(configuredWebhook(r.url.replace('/hook', '/other'), undefined), body)).toMatchObject({ kind: 'rejected', status: 500 });
    client.close();
  });

  it('gives up when no answer comes within the time-out', async () => {
    const r = await receiver(() => {}); // never answers
    const client = new DeliveryClient({ policy: open, answerTimeoutMs: 300 });
    const outcome = await client.post(configuredWebhook(r.url, undefined), body);
    expect(outcome.kind).toBe('timeout');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(3000);
    expect(describeOutcome(outcome, 300)).toBe('the webhook did not answer within 300 ms');
    client.close();
  });

  it('bounds the whole post by the time-out: an answer whose body trickles is dropped there, as a time-out', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      const trickle = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(trickle));
    });
    const client = new DeliveryClient({ policy: open, answerTimeoutMs: 300 });
    const outcome = await client.post(configuredWebhook(r.url, undefined), body);
    expect(outcome.kind).toBe('timeout');
    expect(outcome.durationMs).toBeLessThan(3000);
    client.close();
  });

  it('reads at most the response cap of an endless answer, then drops it', async () => {
    let closed = false;
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => (closed = true));
      pump();
    });
    const client = new DeliveryClient({ policy: open, maxResponseBytes: 64 * 1024, answerTimeoutMs: 5000 });
    const outcome = await client.post(configuredWebhook(r.url, undefined), body);
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    expect(outcome.kind === 'delivered' && outcome.responseBytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(outcome.kind === 'delivered' && outcome.responseBytes).toBeLessThan(2 * 64 * 1024);
    expect(outcome.durationMs).toBeLessThan(5000);
    await expect.poll(() => closed).toBe(true);
    client.close();
  });

  it('refuses a target that resolves to an internal address, sending nothing, unless allowed', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const strict = new DeliveryClient();
    const literal = await strict.post(configuredWebhook(r.url, undefined), body);
    expect(literal).toMatchObject({ kind: 'refused_target' });
    expect(describeOutcome(literal)).toMatch(/^delivery refused: the webhook host 127\.0\.0\.1 resolves to 127\.0\.0\.1, in 127\.0\.0\.0\/8 \(loopback\); set events\.allow_private_targets: true/);
    const byName = await strict.post(configuredWebhook(r.url.replace('127.0.0.1', 'localhost'), undefined), body);
    expect(byName).toMatchObject({ kind: 'refused_target', reason: expect.stringMatching(/^the webhook host localhost resolves to (127\.0\.0\.1|::1)/) });
    // Every address counts: one public and one private address is refused.
    const mixed = new DeliveryClient({
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    expect(await mixed.post(configuredWebhook('https://hooks.example.test/x', undefined), body)).toMatchObject({ kind: 'refused_target', reason: expect.stringContaining('10.0.0.7') });
    expect(r.received).toEqual([]);
    expect(await strict.refusal(configuredWebhook(r.url, undefined))).toMatch(/127\.0\.0\.0\/8/);
    expect(await new DeliveryClient({ policy: open }).refusal(configuredWebhook(r.url, undefined))).toBeUndefined();
    // The connection goes to the addresses checked: a name only the resolver knows reaches the local receiver.
    const port = new URL(r.url).port;
    const pinned = new DeliveryClient({ policy: open, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(await pinned.post(configuredWebhook(`http://receiver.invalid:${port}/hook`, undefined), body)).toMatchObject({ kind: 'delivered' });
    expect(r.received[0]?.headers.host).toBe(`receiver.invalid:${port}`);
    for (const c of [strict, mixed, pinned]) c.close();
  });

  it('reports an unreachable target and an abandoned delivery', async () => {
    const gone = await receiver(() => {});
    const url = gone.url;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const client = new DeliveryClient({ policy: open });
    expect(await client.post(configuredWebhook(url, undefined), body)).toMatchObject({ kind: 'unreachable', reason: 'ECONNREFUSED' });
    const held = await receiver(() => {});
    const abort = new AbortController();
    const pending = client.post(configuredWebhook(held.url, undefined), body, abort.signal);
    await expect.poll(() => held.received.length).toBe(1);
    abort.abort();
    expect(await pending).toMatchObject({ kind: 'aborted' });
    client.close();
  });
});
