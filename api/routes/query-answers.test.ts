// The query route's bound on the cw-db answers it holds, against the route itself: callers that read nothing of
// their answers must not keep the room every other project's answers share (a hostile tenant's idle sockets).
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseDirectory } from '../../src/platform/databases/databases.ts';
import { Problem } from '../schemas/problem.ts';
import { databaseRoutes } from './databases.ts';

/** A Hrana answer of 30 MB: two of them fill the route's 64 MiB in all. */
const ROW = [{ type: 'text', value: 'x'.repeat(1_000_000) }];
const ANSWER = Buffer.from(
  JSON.stringify({
    baton: null,
    results: [
      { type: 'ok', response: { type: 'execute', result: { cols: [{ name: 'v' }], rows: Array.from({ length: 30 }, () => ROW), affected_row_count: 0, last_insert_rowid: null } } },
      { type: 'ok', response: { type: 'close' } },
    ],
  }),
);

let engine: Server;
/** How a held query's exchange with the engine ended. */
const heldClosed = Promise.withResolvers<string>();
/** The queries cw-db was asked to run, by tenant. */
const ran = new Map<string, number>();
let app: FastifyInstance;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  engine = createServer((request, response) => {
    const tenant = request.url?.split('/')[2] ?? '';
    ran.set(tenant, (ran.get(tenant) ?? 0) + 1);
    // A query whose answer never comes: what happens to it is reported.
    if (tenant.startsWith('held-')) {
      response.once('close', () => heldClosed.resolve(response.writableFinished ? 'answered' : 'given up'));
      return;
    }
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length }).end(ANSWER));
  });
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  // Only the query route's lookup is used: a database's tenant is its project and name.
  const databases = {
    queryTarget: (project: string, database: string) => ({ tenantId: `${project}-${database}` }),
    tokenHolder: (_project: string, _database: string, token: string) => (token === 'token' ? 'sha256-of-token' : undefined),
  } as unknown as DatabaseDirectory;
  app = Fastify();
  app.addSchema(Problem);
  databaseRoutes(app, { databases, dbUrl: `http://127.0.0.1:${(engine.address() as AddressInfo).port}/` });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  app.server.closeAllConnections();
  await app.close();
  await new Promise((resolve) => engine.close(resolve));
});

const body = JSON.stringify({ sql: 'SELECT v FROM t' });

/** A caller that sends its query and never reads a byte of the answer; resolves once the answer's head is written to it. */
function idleCaller(project: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/projects/${project}/databases/db/query HTTP/1.1\r\nhost: api\r\nauthorization: Bearer token\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
    });
    sockets.push(socket);
    // The first bytes arrive; then the socket is paused, its buffers fill, and the rest waits for a reader that never comes.
    socket.once('data', () => {
      socket.pause();
      resolve();
    });
  });
}

describe('the query route’s answers', () => {
  it('are given back once serialized: two projects’ callers reading nothing leave room for a third project’s answer', { timeout: 20_000 }, async () => {
    await Promise.all([idleCaller('hostile-1'), idleCaller('hostile-2')]);
    const started = performance.now();
    const answer = await fetch(`http://127.0.0.1:${port}/v1/projects/victim/databases/db/query`, {
      method: 'POST',
      headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { results: { rows: unknown[] }[] }).results[0]?.rows).toHaveLength(30);
    // Held until those callers read their answers, it would have waited the route's 30 s and answered 502.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('refuse a project’s next query, before it runs, once its callers left 64 MiB unread; another project’s run (found by a hostile run)', { timeout: 20_000 }, async () => {
    // Three answers of 30 MB not read: past the project's 64 MiB.
    for (let i = 0; i < 3; i++) await idleCaller('hoarder');
    const query = (project: string) =>
      fetch(`http://127.0.0.1:${port}/v1/projects/${project}/databases/db/query`, { method: 'POST', headers: { authorization: 'Bearer token', 'content-type': 'application/json' }, body });
    const refused = await query('hoarder');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { message: string }).message).toMatch(/have not read 8\d MiB of earlier query answers yet.*did not run/);
    expect(ran.get('hoarder-db')).toBe(3);
    const served = await query('neighbour');
    expect(served.status).toBe(200);
    await served.arrayBuffer();
  });

  it('stop waiting for cw-db’s answer once the caller has left (found in review: it was read and converted outside the bounds)', { timeout: 20_000 }, async () => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST /v1/projects/held/databases/db/query HTTP/1.1\r\nhost: api\r\nauthorization: Bearer token\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
    await vi.waitFor(() => expect(ran.get('held-db')).toBe(1), { timeout: 5000, interval: 10 });
    socket.destroy();
    expect(await heldClosed.promise).toBe('given up');
  });
});
