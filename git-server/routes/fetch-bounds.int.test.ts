// Fetches and clones running at once (`server.max_fetches*`) with stock git against MinIO: one past the caller's share
// waits its turn and, past the wait, is refused with a status git shows; the turn freed, the clone goes through.
import { randomBytes } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { GitClient } from '../../e2e/harness/git-client.ts';
import { mintToken } from '../auth/index.ts';
import { pushBed } from '../testing/bucket-git-server.ts';

const SECRET = 'fetch-bounds-test-secret-of-32-bytes!!';
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const REPO = `fetches-${randomBytes(4).toString('hex')}/site`;

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let app: FastifyInstance;
let remote: string;
let git: GitClient;

beforeAll(async () => {
  let work: string;
  ({ app, remote, git, work } = await pushBed(objects, SECRET, token, REPO, { fetches: { perCaller: 1, perOwner: 8, total: 8, waitMs: 1500 } }));
  await git.commit(work, 'first', { 'a.txt': 'a\n' });
  await git.run(['push', '-q', remote, 'main'], { cwd: work });
});
afterAll(async () => {
  await app?.close();
  objects.destroy();
});

const fetches = async (state: 'running' | 'waiting') => {
  const text = (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
  return Number(new RegExp(`^service_fetches\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
};

/** An upload-pack request whose body never ends: git upload-pack waits on it, holding one of Ada's fetches. */
function heldFetch(): ClientRequest {
  const { hostname, port } = new URL(remote);
  const held = request({
    host: hostname,
    port,
    method: 'POST',
    path: `/${REPO}/git-upload-pack`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-git-upload-pack-request', 'transfer-encoding': 'chunked' },
  });
  held.on('error', () => {}); // destroyed by the test
  held.flushHeaders();
  return held;
}

describe('fetches running at once', () => {
  it("makes one past the caller's share wait its turn, refuses it past the wait, and clones once the turn is free", async () => {
    const held = heldFetch();
    try {
      await vi.waitFor(async () => expect(await fetches('running')).toBe(1), { timeout: 10_000, interval: 20 });
      const refused = await git.run(['clone', '-q', remote, await git.workdir('refused')], { okCodes: [128] });
      expect(refused.stderr.toString()).toMatch(/429/);
      expect(await fetches('waiting')).toBe(0);
    } finally {
      held.destroy();
    }
    await vi.waitFor(async () => expect(await fetches('running')).toBe(0), { timeout: 10_000, interval: 20 });
    const target = await git.workdir('cloned');
    await git.run(['clone', '-q', remote, target]);
    expect(await git.out(['log', '--format=%s'], target)).toBe('first');
  });
});
