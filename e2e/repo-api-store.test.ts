// The JSON API when cw-git's object store cannot be reached: a read that must revalidate (wal.freshness_ttl 0s,
// so every read does) answers 503 `store_unavailable` with Retry-After, never the cached copy's stale answer; once
// the store is back, the same read answers 200 with the bucket's current head. The instance under test reaches
// MinIO through a TCP proxy the test switches off; the testbed's instance `a` pushes straight to MinIO.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../git-server/serve.ts';
import { startGitService } from './harness/git-service.ts';
import { useGitTestbed } from './harness/git-testbed.ts';
import { startSwitchableProxy, type SwitchableProxy } from './harness/switchable-proxy.ts';

const bed = useGitTestbed();
let proxy: SwitchableProxy;
let behindProxy: RunningService;

beforeAll(async () => {
  proxy = await startSwitchableProxy(bed.setup.s3.endpoint ?? '');
  behindProxy = await startGitService({ ...bed.setup, s3: { ...bed.setup.s3, endpoint: proxy.endpoint }, freshnessTtl: '0s' });
});
afterAll(async () => {
  proxy?.up();
  await behindProxy?.stop();
  await proxy?.close();
});

/** Reads that must revalidate the head first: the summary, a listing, a file and the history. */
const READS = ['', '/refs', '/tree', '/blob/main/README.md', '/commits'];

async function read(repo: string, path: string): Promise<Response> {
  return fetch(`${behindProxy.url}/${repo}/api${path}`, { headers: { authorization: `Bearer ${bed.token}` } });
}

describe('repository JSON API: object store unavailable', () => {
  it('answers 503 store_unavailable with Retry-After instead of the cached copy, and 200 with the new head once the store is back', async () => {
    const repo = await bed.createRepo();
    const work = await bed.git.workdir(`store-${repo.split('/')[1]}`);
    await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
    const first = await bed.git.commit(work, 'first', { 'README.md': 'one\n' });
    await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
    // The instance behind the proxy caches the repository at the first commit...
    for (const path of READS) expect((await read(repo, path)).status, path).toBe(200);
    expect(((await (await read(repo, '')).json()) as { head: { sha: string } }).head.sha).toBe(first);
    // ...then the repository moves on without it, and its store goes away.
    const second = await bed.git.commit(work, 'second', { 'README.md': 'two\n' });
    await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
    proxy.down();

    for (const path of READS) {
      const response = await read(repo, path);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after'), path).toMatch(/^[1-9][0-9]*$/);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await response.json(), path).toEqual({ error: 'store_unavailable', retryable: true, message: expect.stringMatching(/\S/) });
    }

    proxy.up();
    const summary = await read(repo, '');
    expect(summary.status).toBe(200);
    expect(((await summary.json()) as { head: { sha: string } }).head.sha).toBe(second);
    const blob = await read(repo, '/blob/main/README.md?raw=1');
    expect(blob.status).toBe(200);
    expect(await blob.text()).toBe('two\n');
  });
});
