// The ref limit (`quota.repository_max_refs`) on the JSON API's writes, through two instances on one bucket: every
// route that creates a ref answers 409 `ref_limit_reached` past it and writes nothing, moving and deleting refs at the
// limit still work, and two creates racing through two instances cannot together pass it.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { twoInstances, type TwoInstances } from '../testing/two-instances.ts';

let bed: TwoInstances | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const committer = { name: 'Ada', email: 'ada@example.com' };
const LIMIT = 3;

/** `acme/<name>` with one commit on main; answers the commit. */
async function seeded(t: TwoInstances, name = 'site'): Promise<string> {
  expect((await t.b('PUT', `/acme/${name}`)).statusCode).toBe(201);
  const changes = [{ op: 'upsert', path: 'a.txt', content: Buffer.from('a\n').toString('base64'), mode: '100644' }];
  const answer = await t.b('POST', `/acme/${name}/api/commits`, { branch: 'main', message: 'first', committer, changes });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json<{ oid: string }>().oid;
}

async function refNames(t: TwoInstances, kind: 'branches' | 'tags'): Promise<string[]> {
  return (await t.b('GET', `/acme/site/api/refs/${kind}`)).json<{ refs: { name: string }[] }>().refs.map((r) => r.name);
}

function refused(answer: { statusCode: number; json: () => unknown }): void {
  expect([answer.statusCode, answer.json()]).toEqual([409, { error: 'ref_limit_reached', retryable: false, message: expect.stringContaining(`acme/site may hold at most ${LIMIT} refs`) as unknown }]);
}

describe('the ref limit on JSON API writes', { timeout: 30_000 }, () => {
  it('refuses every route that would create a ref past it, and still moves and deletes refs at it', async () => {
    bed = await twoInstances({ maxRefs: LIMIT });
    bed.gate.release(); // no race here: `a` writes as `b` does
    const main = await seeded(bed);
    expect((await bed.a('PUT', '/acme/site/api/refs/heads/a', { target: main })).statusCode).toBe(201);
    expect((await bed.b('PUT', '/acme/site/api/refs/tags/v1', { target: main })).statusCode).toBe(201);

    refused(await bed.a('PUT', '/acme/site/api/refs/heads/b', { target: main }));
    refused(await bed.b('PUT', '/acme/site/api/refs/tags/v2', { target: main, expected_old_oid: zeroOid('sha1') }));
    refused(await bed.a('POST', '/acme/site/api/tags', { name: 'v2', target: main, message: 'annotated', tagger: committer }));
    const changes = [{ op: 'upsert', path: 'b.txt', content: Buffer.from('b\n').toString('base64'), mode: '100644' }];
    refused(await bed.b('POST', '/acme/site/api/commits', { branch: 'b', base: 'main', message: 'new branch', committer, changes }));
    expect([await refNames(bed, 'branches'), await refNames(bed, 'tags')]).toEqual([['a', 'main'], ['v1']]);
    expect((await bed.b('GET', '/acme/site/api/overview')).json()).toMatchObject({ refs: { count: LIMIT, max: LIMIT } });

    // At the limit: a commit on an existing branch, a move and a deletion go through; then there is room again.
    const moved = await bed.a('POST', '/acme/site/api/commits', { branch: 'main', message: 'second', committer, changes });
    expect(moved.statusCode, moved.body).toBe(201);
    expect((await bed.a('PUT', '/acme/site/api/refs/heads/a', { target: moved.json<{ oid: string }>().oid })).statusCode).toBe(200);
    expect((await bed.b('DELETE', '/acme/site/api/refs/tags/v1')).statusCode).toBe(204);
    expect((await bed.a('PUT', '/acme/site/api/refs/heads/b', { target: main })).statusCode).toBe(201);
    expect([await refNames(bed, 'branches'), await refNames(bed, 'tags')]).toEqual([['a', 'b', 'main'], []]);
  });

  it('two creates racing through two instances for the last place: one lands, the other answers 409', async () => {
    bed = await twoInstances({ maxRefs: LIMIT });
    const main = await seeded(bed);
    expect((await bed.b('PUT', '/acme/site/api/refs/heads/a', { target: main })).statusCode).toBe(201);
    // `a` read the head with room for one ref and is held before its log entry; `b` takes the place meanwhile.
    const slow = bed.a('PUT', '/acme/site/api/refs/heads/x', { target: main });
    await bed.gate.reached;
    expect((await bed.b('PUT', '/acme/site/api/refs/heads/y', { target: main })).statusCode).toBe(201);
    bed.gate.release();
    refused(await slow);
    expect(await refNames(bed, 'branches')).toEqual(['a', 'main', 'y']);
  });

  it('refuses an import of more refs than the limit, leaving the target pristine', async () => {
    bed = await twoInstances({ maxRefs: LIMIT, importSources: ['acme/big'] });
    bed.gate.release();
    const main = await seeded(bed, 'big');
    // The source was filled where the limit was higher: four refs.
    const roomy = new RepoStore({ store: bed.bucket, registry: new Registry(), maxRefs: 100 });
    const tags = ['t1', 't2', 't3'].map((t) => ({ ref: `refs/tags/${t}`, old: zeroOid('sha1'), new: main }));
    expect((await roomy.publish('acme/big', { kind: 'ref_update', refUpdates: tags, pusher: 'ada', requestId: 'seed', atomic: true })).outcome).toBe('published');
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const snapshot = (await bed.b('POST', '/acme/site/api/import/resolve', { source: { owner: 'acme', repo: 'big' } })).json();
    refused(await bed.a('POST', '/acme/site/api/import', { operation_key: 'import-big', snapshot }));
    expect((await bed.b('GET', '/acme/site/api')).json()).toMatchObject({ branches: 0, tags: 0 });
  });
});
