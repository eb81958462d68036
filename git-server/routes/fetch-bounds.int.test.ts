// Fetches and clones running at once (`server.max_fetches*`) with stock git against MinIO: one past the caller's share
// waits its turn and, past the wait, is refused with a status git shows; the turn freed, the clone goes through. A
// request still being sent takes no turn.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { GitClient } from '../../e2e/harness/git-client.ts';
import { mintToken } from '../auth/index.ts';
import { pktLine } from '../plumbing/pkt-line.ts';
import { pushBed } from '../testing/bucket-git-server.ts';

const SECRET = 'fetch-bounds-test-secret-of-32-bytes!!';
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const REPO = `fetches-${randomBytes(4).toString('hex')}/site`;

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let app: FastifyInstance;
let remote: string;
let git: GitClient;
let cacheDir: string;
let head: string;

beforeAll(async () => {
  let work: string;
  ({ app, remote, git, work, cacheDir } = await pushBed(objects, SECRET, token, REPO, { fetches: { perCaller: 1, perOwner: 8, total: 8, waitMs: 1500 } }));
  // Incompressible and larger than the sockets' buffers: a pack nobody reads holds its upload-pack (and its turn).
  await writeFile(join(work, 'big.bin'), randomBytes(24 << 20));
  head = await git.commit(work, 'first', { 'a.txt': 'a\n' });
  await git.run(['push', '-q', remote, 'main'], { cwd: work });
}, 60_000);
afterAll(async () => {
  await app?.close();
  objects.destroy();
});

const fetches = async (state: 'running' | 'waiting') => {
  const text = (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
  return Number(new RegExp(`^service_fetches\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
};

/** An upload-pack request of Ada's, its body written so far: `body`, and ended when `end`. */
function fetchRequest(body: Buffer, end: boolean): ClientRequest {
  const { hostname, port } = new URL(remote);
  const req = request({
    host: hostname,
    port,
    method: 'POST',
    path: `/${REPO}/git-upload-pack`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-git-upload-pack-request', 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => {}); // destroyed by the test
  req.on('response', (response) => response.pause()); // never read: the answer backs up into upload-pack
  if (end) req.end(body);
  else req.write(body);
  return req;
}

/** What is being received on the cache's disk (a large fetch request's spool file lives in a `fetch-` folder). */
const spooled = () => (existsSync(join(cacheDir, 'tmp')) ? readdirSync(join(cacheDir, 'tmp')).filter((name) => name.startsWith('fetch-')) : []);

const clone = async (name: string) => git.run(['clone', '-q', remote, await git.workdir(name)], { okCodes: [0, 128] });

describe('fetches running at once', () => {
  it('adds no more close listeners to a clone’s answer than Node warns of (a line on stderr for every clone)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void (warning.name === 'MaxListenersExceededWarning' && warnings.push(warning));
    process.on('warning', onWarning);
    try {
      expect((await clone('listeners')).code).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.message)).toEqual([]);
  });

  it("makes one past the caller's share wait its turn, refuses it past the wait, and clones once the turn is free", async () => {
    // A whole clone request whose answer is never read: its upload-pack runs, blocked on the client, holding Ada's one turn.
    const held = fetchRequest(Buffer.concat([pktLine(`want ${head} ofs-delta\n`), Buffer.from('0000'), pktLine('done\n')]), true);
    try {
      await vi.waitFor(async () => expect(await fetches('running')).toBe(1), { timeout: 10_000, interval: 20 });
      const refused = await clone('refused');
      expect([refused.code, refused.stderr.toString()]).toEqual([128, expect.stringMatching(/429/)]);
      expect(await fetches('waiting')).toBe(0);
    } finally {
      held.destroy();
    }
    await vi.waitFor(async () => expect(await fetches('running')).toBe(0), { timeout: 10_000, interval: 20 });
    const target = await git.workdir('cloned');
    await git.run(['clone', '-q', remote, target]);
    expect(await git.out(['log', '--format=%s'], target)).toBe('first');
  });

  it('takes no turn for a request still being sent, and leaves nothing on the disk once its client is gone', async () => {
    // 100 KiB of haves, more than is kept in memory, and no end: the request is spooled while it arrives.
    const haves = Buffer.concat(Array.from({ length: 2000 }, () => pktLine(`have ${randomBytes(20).toString('hex')}\n`)));
    const sending = fetchRequest(Buffer.concat([pktLine(`want ${head} ofs-delta\n`), Buffer.from('0000'), haves]), false);
    try {
      await vi.waitFor(() => expect(spooled()).toHaveLength(1), { timeout: 10_000, interval: 20 });
      expect(await fetches('running')).toBe(0);
      const cloned = await clone('while-sending');
      expect(cloned.code, cloned.stderr.toString()).toBe(0);
    } finally {
      sending.destroy();
    }
    await vi.waitFor(() => expect(spooled()).toEqual([]), { timeout: 10_000, interval: 20 });
  });
});
