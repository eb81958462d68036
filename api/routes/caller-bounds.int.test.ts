import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformApp, type PlatformApp } from './testing/platform-app.ts';

// One user's requests against the real API and apiserver: what one caller may hold of the process, and the
// apiserver writes it may make, are bounded per user, and another user is not held back by them.
let platform: PlatformApp;
let base: { host: string; port: number };

beforeAll(async () => {
  platform = await platformApp({ rateLimit: { perSecond: 1000, burst: 1000, writes: { perSecond: 0.05, burst: 5 }, inFlight: 4 } });
  await platform.app.listen({ port: 0, host: '127.0.0.1' });
  base = { host: '127.0.0.1', port: (platform.app.server.address() as AddressInfo).port };
});
afterAll(() => platform?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A request whose body never comes (a slow client, or one holding requests open on purpose): it is let through
 * on its headers, so it counts in flight while the server waits for the body. Resolves once its headers are sent.
 */
async function heldOpen(token: string): Promise<Socket> {
  const socket = connect(base.port, base.host);
  await once(socket, 'connect');
  socket.write(`POST /v1/tokens HTTP/1.1\r\nhost: api\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 64\r\n\r\n{`);
  return socket;
}

async function get(token: string, path: string): Promise<{ status: number; detail?: string }> {
  const res = await fetch(`http://${base.host}:${base.port}${path}`, { headers: bearer(token) });
  const body = (await res.json()) as { detail?: string };
  return { status: res.status, ...(body.detail ? { detail: body.detail } : {}) };
}

describe("one user's requests", () => {
  it('are held to their bound in flight, a held-open request among them, while another user is served', async () => {
    const [ann, bob] = [await platform.createUser(), await platform.createUser()];
    const [annToken, bobToken] = [await platform.tokenFor(ann, ['tokens:read', 'tokens:write']), await platform.tokenFor(bob, ['tokens:read', 'tokens:write'])];
    // Each is a write too (of the burst of 5). Let through on its headers: the server counts each before the next.
    const held: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      held.push(await heldOpen(annToken));
      await expect.poll(async () => (await get(annToken, '/v1/tokens')).status, { timeout: 5000 }).toBe(i < 3 ? 200 : 429);
    }
    expect(await get(annToken, '/v1/tokens')).toEqual({ status: 429, detail: '4 requests of yours are in flight already; retry once one has been answered.' });
    expect((await get(bobToken, '/v1/tokens')).status).toBe(200);
    // Revoking a token never waits: a leaked token filling the bound must not keep its owner from revoking it.
    const revoked = await fetch(`http://${base.host}:${base.port}/v1/tokens/nope`, { method: 'DELETE', headers: bearer(annToken) });
    expect(revoked.status).toBe(404);
    // A caller that hangs up gives its slots back.
    for (const socket of held) socket.destroy();
    await expect.poll(async () => (await get(annToken, '/v1/tokens')).status, { timeout: 5000 }).toBe(200);
  });

  it('are limited in writes apart from reads: past the write limit a user still reads, and another user writes', async () => {
    const [ann, bob] = [await platform.createUser(), await platform.createUser()];
    const [annToken, bobToken] = [await platform.tokenFor(ann, ['tokens:read', 'tokens:write']), await platform.tokenFor(bob, ['tokens:read', 'tokens:write'])];
    const create = (token: string) => platform.app.inject({ method: 'POST', url: '/v1/tokens', headers: bearer(token), payload: { scopes: ['tokens:read'], description: 'w' } });
    for (let i = 0; i < 5; i++) expect((await create(annToken)).statusCode).toBe(201);
    const refused = await create(annToken);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toMatch(/^Write limit of 3 writes per minute exceeded; retry in \d+ s\.$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing was written for the refused one: five tokens made, and the reads go on.
    const listed = await platform.app.inject({ method: 'GET', url: '/v1/tokens', headers: bearer(annToken) });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().tokens.filter((t: { description?: string }) => t.description === 'w')).toHaveLength(5);
    expect((await create(bobToken)).statusCode).toBe(201);
  });
});
