import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { forwardRequest, forwardUpgrade } from './forward.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listening(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A replica that forwards every request to `owner`, and the answer a client gets through it. */
async function through(owner: string): Promise<{ status: number; retryAfter: string | null; body: { code?: string } }> {
  const front = await listening(createServer((request, response) => void forwardRequest(request, response, owner)));
  const answer = await fetch(`${front}/v1/t/v2/pipeline`, { method: 'POST', body: '{"baton":null,"requests":[]}' });
  return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: (await answer.json()) as { code?: string } };
}

/** Sends `text` as is on a new connection to `base` and answers everything that comes back until it closes. */
function rawRequest(base: string, text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.once('end', () => resolve(answer)).once('error', reject);
  });
}

describe('forwardRequest', () => {
  it('lets an answer begun while an owner check was under way finish, whatever the check then says (review-167 F1)', async () => {
    let release: () => void = () => {};
    const asked = new Promise<void>((resolve) => (release = resolve));
    // Its answer begins once the check is under way, and ends after the check said no.
    const owner = await listening(
      createServer((request, response) => request.resume().on('end', () => void asked.then(() => (response.writeHead(200).write('{"code":'), setTimeout(() => response.end('"done"}'), 300))))),
    );
    let checked: () => void = () => {};
    const checking = new Promise<void>((resolve) => (checked = resolve));
    // The check is under way when the answer comes, and says "no longer the owner" only after it began.
    const stillOwner = () => {
      checked();
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100));
    };
    const front = await listening(createServer((request, response) => void forwardRequest(request, response, owner, stillOwner, 20)));
    const answer = fetch(`${front}/v1/t/v2/pipeline`, { method: 'POST', body: '{}' });
    await checking;
    release();
    const res = await answer;
    expect([res.status, await res.json()]).toEqual([200, { code: 'done' }]);
  });

  it('gives a request up as lost once its owner, silent, no longer owns the database (review-164 F9)', async () => {
    // An owner that takes the request and never answers (paused, its node cut off), taken over meanwhile.
    const owner = await listening(createServer(() => {}));
    let checks = 0;
    const stillOwner = async () => ++checks < 3;
    const front = await listening(createServer((request, response) => void forwardRequest(request, response, owner, stillOwner, 20)));
    const answer = await fetch(`${front}/v1/t/v2/pipeline`, { method: 'POST', body: '{"baton":null,"requests":[]}' });
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { code: string }).code).toBe('DATABASE_RESTARTING');
    expect(checks).toBe(3);
  });

  it('passes the owner’s answer through', async () => {
    const owner = await listening(createServer((request, response) => request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"ok"}'))));
    expect(await through(owner)).toEqual({ status: 200, retryAfter: null, body: { code: 'ok' } });
  });

  it.each([
    ['an absolute-form', (elsewhere: string) => `${elsewhere}/v1/t/v2/pipeline?q=1`],
    ['a scheme-relative', (elsewhere: string) => `//${new URL(elsewhere).host}/v1/t/v2/pipeline?q=1`],
  ])('sends a request with %s target to the owner, never to the host it names (found in review)', async (_form, target) => {
    const reached: string[] = [];
    const server = (name: string) => createServer((request, response) => request.resume().on('end', () => (reached.push(`${name} ${request.url}`), response.end(name))));
    const owner = await listening(server('owner'));
    const elsewhere = await listening(server('elsewhere'));
    const front = await listening(createServer((request, response) => void forwardRequest(request, response, owner)));
    const answer = await rawRequest(front, `POST ${target(elsewhere)} HTTP/1.1\r\nhost: db\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`);
    expect(answer).toMatch(/owner$/);
    expect(reached).toEqual(['owner /v1/t/v2/pipeline?q=1']);
  });

  it('opens a forwarded WebSocket on the owner whatever host its target names (found in review)', async () => {
    const reached: string[] = [];
    const server = (name: string) => createServer((request, response) => (reached.push(`${name} ${request.url}`), response.writeHead(426).end(name)));
    const owner = await listening(server('owner'));
    const elsewhere = await listening(server('elsewhere'));
    const front = createServer();
    front.on('upgrade', (request, socket, head) => forwardUpgrade(request, socket, head, owner));
    const frontUrl = await listening(front);
    await rawRequest(frontUrl, `GET ${elsewhere}/v1/t?x=1 HTTP/1.1\r\nhost: db\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n`);
    expect(reached).toEqual(['owner /v1/t?x=1']);
  });

  it('answers an owner it cannot reach 503 DATABASE_MOVING to retry: nothing ran', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await through(`http://127.0.0.1:${port}`)).toMatchObject({ status: 503, retryAfter: '1', body: { code: 'DATABASE_MOVING' } });
  });

  it('answers an owner lost once it had the request 503 DATABASE_RESTARTING, not to retry: it may have committed (found in review)', async () => {
    const owner = await listening(createServer((request) => request.resume().on('end', () => request.socket.destroy())));
    expect(await through(owner)).toMatchObject({ status: 503, retryAfter: null, body: { code: 'DATABASE_RESTARTING' } });
  });
});
