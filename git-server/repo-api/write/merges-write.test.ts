// Two identical merges through two instances on one bucket: the one whose publish finds the branch already at
// the merge result answers as the merge that moved it did, not 500.
import { afterEach, describe, expect, it } from 'vitest';
import { twoInstances, type TwoInstances } from '../testing/two-instances.ts';

let bed: TwoInstances | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const committer = { name: 'Ada', email: 'ada@example.com', when: '2030-01-02T03:04:05Z' };

async function commit(t: TwoInstances, branch: string, file: string, extra: Record<string, unknown> = {}): Promise<string> {
  const changes = [{ op: 'upsert', path: file, content: Buffer.from(`${file}\n`).toString('base64'), mode: '100644' }];
  const answer = await t.b('POST', '/acme/site/api/commits', { branch, message: file, committer, changes, ...extra });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json<{ oid: string }>().oid;
}

/** Runs `body` through `a` (held at its log write) and then through `b`, and answers both answers. */
async function sameMergeTwice(t: TwoInstances, body: Record<string, unknown>) {
  const first = t.a('POST', '/acme/site/api/merges', body);
  await t.gate.reached;
  const second = await t.b('POST', '/acme/site/api/merges', body);
  t.gate.release();
  return { first: await first, second };
}

describe('POST /api/merges when an identical merge lands first', () => {
  it('a fast-forward answers 201 with the branch at head', async () => {
    bed = await twoInstances();
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const base = await commit(bed, 'main', 'one.txt');
    const head = await commit(bed, 'feature', 'two.txt', { base: 'main' });
    const { first, second } = await sameMergeTwice(bed, { base: 'main', head: 'feature', strategy: 'fast-forward-only', expected_base_oid: base, committer });
    expect([second.statusCode, second.json()]).toEqual([201, { ref: 'refs/heads/main', oid: head, seq: 3, already_merged: false }]);
    expect([first.statusCode, first.json()]).toEqual([201, { ref: 'refs/heads/main', oid: head, seq: 3, already_merged: false }]);
  });

  it('a merge commit built in the same second answers 201 with that commit', async () => {
    bed = await twoInstances();
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    await commit(bed, 'main', 'one.txt');
    await commit(bed, 'feature', 'two.txt', { base: 'main' });
    const base = await commit(bed, 'main', 'three.txt');
    const { first, second } = await sameMergeTwice(bed, { base: 'main', head: 'feature', strategy: 'merge', expected_base_oid: base, committer });
    expect(second.statusCode, second.body).toBe(201);
    const merged = second.json<{ oid: string }>().oid;
    expect([first.statusCode, first.json()]).toEqual([201, { ref: 'refs/heads/main', oid: merged, commit_oid: merged, seq: 4, already_merged: false }]);
  });
});
