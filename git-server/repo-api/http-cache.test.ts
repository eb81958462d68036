// The caching headers of reads through the whole app: an answer addressed by a full object id is cacheable for
// good, but only by the reader's own cache, since every repository needs a token to read.
import { afterEach, describe, expect, it } from 'vitest';
import { twoInstances, type TwoInstances } from './testing/two-instances.ts';

let bed: TwoInstances | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('caching of reads', () => {
  it('marks answers addressed by a full object id private and immutable, and those addressed by a ref no-cache', async () => {
    bed = await twoInstances();
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const changes = [{ op: 'upsert', path: 'README.md', content: Buffer.from('# site\n').toString('base64'), mode: '100644' }];
    const committed = await bed.b('POST', '/acme/site/api/commits', { branch: 'main', message: 'first', committer: { name: 'Ada', email: 'ada@example.com' }, changes });
    const sha = committed.json<{ oid: string }>().oid;

    for (const url of [`/acme/site/api/commit/${sha}`, `/acme/site/api/commits?ref=${sha}`]) {
      const byId = await bed.b('GET', url);
      expect([byId.statusCode, byId.headers['cache-control']], url).toEqual([200, 'private, max-age=31536000, immutable']);
    }
    const byRef = await bed.b('GET', '/acme/site/api/commit/main');
    expect([byRef.statusCode, byRef.headers['cache-control']]).toEqual([200, 'no-cache']);
  });
});
