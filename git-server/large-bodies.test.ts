import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { mintToken } from './auth/index.ts';
import { bucketGitServer } from './testing/bucket-git-server.ts';

const SECRET = 'large-bodies-test-secret-of-32-bytes!';
const TOKEN = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const OTHER = mintToken({ sub: 'bob', scopes: ['read', 'write'] }, SECRET);
const sockets: Socket[] = [];
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await close?.();
});

async function server(deadlineMs: number, logLines?: string[]) {
  const app = await bucketGitServer(
    new MemoryObjectStore(),
    SECRET,
    { largeBodies: { totalBytes: 300_000, perOwnerBytes: 200_000, deadlineMs } },
    logLines ? { logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } } } : {},
  );
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  close = () => app.close();
  return { app, port };
}

/** A commit body announced at `length` bytes, of which only the first few are sent: what a slow client holds. */
async function slowCommit(port: number, owner: string, length: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await once(socket, 'connect');
  socket.write(`POST /${owner}/site/api/commits HTTP/1.1\r\nhost: git.test\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"bra`);
  return socket;
}

const commit = (app: Awaited<ReturnType<typeof server>>['app'], owner: string, bytes: number, token = TOKEN) =>
  app.inject({ method: 'POST', url: `/${owner}/site/api/commits`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: `{"x":"${'a'.repeat(bytes - 8)}"}` });

describe('large request bodies', () => {
  it('are counted before they are read, per sender (429) and in all (503), and given back once answered', async () => {
    const { app, port } = await server(60_000);
    // Ada's slow body names another owner's repository: it counts against Ada, who sends it, not that owner.
    const held = await slowCommit(port, 'victim', 150_000);
    // The slow body has its count once a commit of the same sender that would not fit is refused; small bodies are not counted.
    await expect.poll(async () => (await commit(app, 'acme', 100_000)).statusCode).toBe(429);
    const refused = await commit(app, 'acme', 100_000);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toMatchObject({ error: 'owner_bodies_limit', message: expect.stringContaining('Your requests being read hold') });
    expect((await commit(app, 'acme', 1000)).statusCode).not.toBe(429);
    // The owner Ada named is not held back: another sender's commit to it is read.
    expect((await commit(app, 'victim', 100_000, OTHER)).statusCode).not.toBe(429);
    const busy = await commit(app, 'umbrella', 160_000, OTHER);
    expect([busy.statusCode, busy.json().error]).toEqual([503, 'bodies_busy']);
    held.destroy();
    await expect.poll(async () => (await commit(app, 'umbrella', 160_000, OTHER)).statusCode).not.toBe(503);
    // Each answered body gave its count back: again and again, it fits.
    for (let i = 0; i < 3; i++) expect((await commit(app, 'umbrella', 160_000, OTHER)).statusCode).not.toBe(503);
  });

  it('leaves bodies streamed by their route alone: an LFS upload longer than the deadline is read to its end', async () => {
    const lines: string[] = [];
    const { app, port } = await server(300, lines);
    expect((await app.inject({ method: 'PUT', url: '/acme/site', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(201);
    const bytes = Buffer.alloc(100_000, 7);
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await once(socket, 'connect');
    socket.write(
      `PUT /acme/site/info/lfs/objects/${createHash('sha256').update(bytes).digest('hex')} HTTP/1.1\r\nhost: git.test\r\nauthorization: Bearer ${TOKEN}\r\n` +
        `content-type: application/octet-stream\r\ncontent-length: ${bytes.length}\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, 50_000));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    // Well past the deadline of buffered bodies, the rest arrives.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(answer, lines.filter((l) => l.includes('"level":50')).join('')).toBe('');
    socket.write(bytes.subarray(50_000));
    await expect.poll(() => answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers a body that has not arrived within the deadline 408, and gives its count back', async () => {
    const { app, port } = await server(300);
    const slow = await slowCommit(port, 'acme', 150_000);
    let answer = '';
    slow.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await once(slow, 'end');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('did not arrive within 0.3 s');
    expect((await commit(app, 'acme', 199_000)).statusCode).not.toBe(429);
  });

  it('takes a client gone mid-upload for what it is: an info line, not a server error', async () => {
    const lines: string[] = [];
    const { app, port } = await server(60_000, lines);
    expect((await app.inject({ method: 'PUT', url: '/acme/site', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(201);
    const gone = connect(port, '127.0.0.1');
    sockets.push(gone);
    await once(gone, 'connect');
    gone.write(
      `PUT /acme/site/info/lfs/objects/${'a'.repeat(64)} HTTP/1.1\r\nhost: git.test\r\nauthorization: Bearer ${TOKEN}\r\n` +
        `content-type: application/octet-stream\r\ncontent-length: 100000\r\n\r\n${'x'.repeat(10)}`,
    );
    await expect.poll(() => lines.some((l) => l.includes('incoming request'))).toBe(true);
    gone.destroy();
    await expect.poll(() => lines.find((l) => l.includes('the client went away'))).toBeDefined();
    expect(lines.map((l) => (JSON.parse(l) as { level: number }).level).filter((level) => level >= 50)).toEqual([]);
  });
});
