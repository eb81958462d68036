// A push that takes longer than the keepalive interval: its answer starts early with side-band keepalives
// and stock git still reads the report; an error after that point reaches git on the error band.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { StoreUnavailableError, type PutBody, type PutOptions } from '../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../src/object-store/testing/forwarding-object-store.ts';
import { GitClient } from '../../e2e/harness/git-client.ts';
import { FLUSH, pktLine } from '../plumbing/pkt-line.ts';
import { runGit } from '../../src/git/run-git.ts';
import { mintToken } from '../auth/index.ts';
import { bucketGitServer } from '../testing/bucket-git-server.ts';

const SECRET = 'keepalive-test-secret-of-32-bytes-or-more';
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);

/** A bucket whose writes take their time, or fail, on demand. */
class SlowStore extends ForwardingObjectStore {
  delayMs = 0;
  failLogWrites = false;
  override async put(key: string, body: PutBody, options?: PutOptions) {
    // Time is the subject: a push slower than the keepalive interval, so keepalives must go out meanwhile.
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failLogWrites && key.includes('/log/')) throw new StoreUnavailableError('put', new Error('simulated outage'));
    return super.put(key, body, options);
  }
}

let app: FastifyInstance;
let url: string;
let git: GitClient;
const objects = new SlowStore(new MemoryObjectStore());

beforeAll(async () => {
  app = await bucketGitServer(objects, SECRET, { keepaliveMs: 30 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://git:${token}@127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  git = await GitClient.create();
});
afterAll(() => app?.close());

describe('a slow push', () => {
  it('keeps the connection alive with side-band packets, and git reads the report after them', async () => {
    await app.inject({ method: 'PUT', url: '/acme/slow', headers: { authorization: `Bearer ${token}` } });
    const work = await git.workdir('slow');
    await git.run(['init', '-q'], { cwd: work });
    const commit = await git.commit(work, 'first', { 'a.txt': 'a\n' });
    objects.delayMs = 150; // four sequential writes: several keepalive intervals
    const traced = await git.run(['push', `${url}/acme/slow`, 'main'], { cwd: work, env: { GIT_TRACE_PACKET: '1' } });
    expect(traced.stderr).toMatch(/\* \[new branch\]\s+main -> main/);
    expect((await git.out(['ls-remote', `${url}/acme/slow`])).split('\n')).toContain(`${commit}\trefs/heads/main`);

    // What went over the wire: keepalive packets first, then the report on band 1 (the same push, by hand).
    const pack = (await runGit(['pack-objects', '--stdout', '--revs'], { cwd: work, stdin: `${commit}\n` })).stdout;
    const zero = '0'.repeat(40);
    const payload = Buffer.concat([pktLine(`${zero} ${commit} refs/heads/copy\0report-status side-band-64k\n`), FLUSH, pack]);
    const raw = await app.inject({
      method: 'POST',
      url: '/acme/slow/git-receive-pack',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-git-receive-pack-request' },
      payload,
    });
    expect(raw.statusCode).toBe(200);
    expect(raw.rawPayload.subarray(0, 10).toString('latin1')).toBe('0005\x010005\x01');
    expect(raw.rawPayload.toString('latin1')).toContain('ok refs/heads/copy');
  });

  it('reports an error after the answer started on the error band, and git fails the push', async () => {
    await app.inject({ method: 'PUT', url: '/acme/down', headers: { authorization: `Bearer ${token}` } });
    const work = await git.workdir('down');
    await git.run(['init', '-q'], { cwd: work });
    await git.commit(work, 'first', { 'a.txt': 'a\n' });
    objects.delayMs = 100;
    objects.failLogWrites = true;
    try {
      const failed = await git.run(['push', `${url}/acme/down`, 'main'], { cwd: work, okCodes: [1, 128] });
      expect(failed.stderr).toContain('error: The object store is unavailable; retry later.');
      expect(await git.out(['ls-remote', `${url}/acme/down`])).toBe('');
    } finally {
      objects.failLogWrites = false;
    }
  });
});
