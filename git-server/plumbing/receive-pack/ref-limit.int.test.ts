// The ref limit (`quota.repository_max_refs`) on pushes, with stock git against MinIO: a push whose new refs would
// pass it is refused per ref with git showing why and changes nothing (an atomic push nothing at all), while moving
// and deleting refs at the limit go through, so a full repository can be cleaned up.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { GitClient } from '../../../e2e/harness/git-client.ts';
import { mintToken } from '../../auth/index.ts';
import { pushBed } from '../../testing/bucket-git-server.ts';

const SECRET = 'ref-limit-test-secret-of-32-bytes!!!';
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const auth = { authorization: `Bearer ${token}` };
const LIMIT = 3;
const REPO = `refs-${randomBytes(4).toString('hex')}/site`;
const REASON = `too many refs: the repository may hold at most ${LIMIT}; delete some first`;

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let app: FastifyInstance;
let remote: string;
let git: GitClient;
let work: string;

beforeAll(async () => {
  ({ app, remote, git, work } = await pushBed(objects, SECRET, token, REPO, { maxRefs: LIMIT }));
});
afterAll(async () => {
  await app?.close();
  objects.destroy();
});

/** The remote's refs, name → oid. */
async function remoteRefs(): Promise<Record<string, string>> {
  const lines = (await git.out(['ls-remote', '--refs', remote])).split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((line) => line.split('\t').reverse() as [string, string]));
}

describe('the ref limit on pushes', () => {
  it('refuses the new refs of a push past it, per ref and with the reason, and changes nothing else it refused', async () => {
    const first = await git.commit(work, 'first', { 'a.txt': 'a\n' });
    await git.run(['push', '-q', remote, 'main', 'main:refs/heads/a'], { cwd: work });
    const second = await git.commit(work, 'second', { 'b.txt': 'b\n' });

    // Two new refs where one fits: both refused; the update of main in the same (non-atomic) push goes through.
    const loose = await git.run(['-c', 'protocol.version=2', 'push', remote, 'main', 'main:refs/heads/b', 'main:refs/tags/v1'], { cwd: work, okCodes: [1] });
    const stderr = loose.stderr.toString();
    expect(stderr).toContain(`! [remote rejected] main -> b (${REASON})`);
    expect(stderr).toContain(`! [remote rejected] main -> v1 (${REASON})`);
    expect(await remoteRefs()).toEqual({ 'refs/heads/a': first, 'refs/heads/main': second });

    // Atomic: one new ref past the limit refuses the whole push.
    const third = await git.commit(work, 'third', { 'c.txt': 'c\n' });
    const atomic = await git.run(['push', '--atomic', remote, 'main', 'main:refs/heads/b', 'main:refs/heads/c'], { cwd: work, okCodes: [1] });
    expect(atomic.stderr.toString()).toContain(`! [remote rejected] main -> c (${REASON})`);
    expect(atomic.stderr.toString()).toMatch(/! \[remote rejected\] main -> main \(atomic push failure\)/);
    expect(await remoteRefs()).toEqual({ 'refs/heads/a': first, 'refs/heads/main': second });

    // One fits exactly.
    await git.run(['push', '-q', remote, 'main', 'main:refs/heads/b'], { cwd: work });
    expect(await remoteRefs()).toEqual({ 'refs/heads/a': first, 'refs/heads/b': third, 'refs/heads/main': third });
    // One count per refused ref: v1 and b, then b and c.
    const metrics = (await app.inject({ method: 'GET', url: '/metrics', headers: auth })).body;
    expect(metrics).toContain('service_push_refused_total{reason="ref_limit"} 4');
  });

  it('at the limit, takes a force-push, a deletion and a rename (a delete and a create in one push)', async () => {
    const before = await remoteRefs();
    expect(Object.keys(before)).toHaveLength(LIMIT);
    await git.run(['push', '-q', '--force', remote, `${before['refs/heads/a']}:refs/heads/b`], { cwd: work });
    await git.run(['push', '-q', '--atomic', remote, ':refs/heads/a', 'refs/heads/main:refs/heads/renamed'], { cwd: work });
    await git.run(['push', '-q', remote, ':refs/heads/b'], { cwd: work });
    expect(Object.keys(await remoteRefs())).toEqual(['refs/heads/main', 'refs/heads/renamed']);
  });

  it('refuses a push whose every new ref is past it before reading its pack into the cache (a spool too small for the pack is never charged)', async () => {
    const repo = `refs-${randomBytes(4).toString('hex')}/spool`;
    // A spool that takes a small commit's pack but not one of 64 KiB of random bytes.
    const bed = await pushBed(objects, SECRET, token, repo, { maxRefs: 1, spool: { totalBytes: 4096, perOwnerBytes: 4096 } });
    try {
      await bed.git.commit(bed.work, 'first', { 'a.txt': 'a\n' });
      await bed.git.run(['push', '-q', bed.remote, 'main'], { cwd: bed.work });
      await bed.git.commit(bed.work, 'large', { 'blob.bin': randomBytes(64 * 1024).toString('base64') });
      const refused = await bed.git.run(['push', bed.remote, 'main:refs/heads/other'], { cwd: bed.work, okCodes: [1] });
      // Indexed, the pack would have met the full spool first ("unpacker error").
      expect(refused.stderr.toString()).toContain(`! [remote rejected] main -> other (too many refs: the repository may hold at most 1; delete some first)`);
    } finally {
      await bed.app.close();
    }
  });
});
