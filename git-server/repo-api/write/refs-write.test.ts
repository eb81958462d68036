// Forced ref writes (no expected_old_oid) through two instances on one bucket: one that loses the race to a
// write through the other instance lands on the new head instead of answering 409.
import { afterEach, describe, expect, it } from 'vitest';
import { twoInstances, type TwoInstances } from '../testing/two-instances.ts';

let bed: TwoInstances | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const committer = { name: 'Ada', email: 'ada@example.com' };

/** main with three commits, and `feature` at the first; answers the three oids. */
async function seeded(t: TwoInstances): Promise<string[]> {
  expect((await t.b('PUT', '/acme/site')).statusCode).toBe(201);
  const oids: string[] = [];
  for (const n of [1, 2, 3]) {
    const changes = [{ op: 'upsert', path: `file${n}.txt`, content: Buffer.from(`${n}\n`).toString('base64'), mode: '100644' }];
    const answer = await t.b('POST', '/acme/site/api/commits', { branch: 'main', message: `commit ${n}`, committer, changes });
    expect(answer.statusCode, answer.body).toBe(201);
    oids.push(answer.json<{ oid: string }>().oid);
  }
  expect((await t.b('PUT', '/acme/site/api/refs/heads/feature', { target: oids[0] })).statusCode).toBe(201);
  return oids;
}

describe('forced ref writes under a race', () => {
  it('PUT without expected_old_oid lands on the ref another write moved after this one read it', async () => {
    bed = await twoInstances();
    const [, second, third] = await seeded(bed);
    const forced = bed.a('PUT', '/acme/site/api/refs/heads/feature', { target: third });
    await bed.gate.reached;
    expect((await bed.b('PUT', '/acme/site/api/refs/heads/feature', { target: second })).statusCode).toBe(200);
    bed.gate.release();
    const answer = await forced;
    expect([answer.statusCode, answer.json()]).toEqual([200, { ref: 'refs/heads/feature', oid: third, seq: 6 }]);
    expect((await bed.b('GET', '/acme/site/api/refs/branches')).json()).toMatchObject({ refs: expect.arrayContaining([{ name: 'feature', sha: third }]) });
  });

  it('DELETE without expected_old_oid deletes the ref another write moved after this one read it', async () => {
    bed = await twoInstances();
    const [, second] = await seeded(bed);
    const forced = bed.a('DELETE', '/acme/site/api/refs/heads/feature');
    await bed.gate.reached;
    expect((await bed.b('PUT', '/acme/site/api/refs/heads/feature', { target: second })).statusCode).toBe(200);
    bed.gate.release();
    expect((await forced).statusCode).toBe(204);
    expect((await bed.b('GET', '/acme/site/api/refs/branches')).json()).toMatchObject({ refs: [{ name: 'main' }] });
  });

  it('PUT with expected_old_oid still answers 409 when the ref moved', async () => {
    bed = await twoInstances();
    const [first, second, third] = await seeded(bed);
    const guarded = bed.a('PUT', '/acme/site/api/refs/heads/feature', { target: third, expected_old_oid: first });
    await bed.gate.reached;
    expect((await bed.b('PUT', '/acme/site/api/refs/heads/feature', { target: second })).statusCode).toBe(200);
    bed.gate.release();
    const answer = await guarded;
    expect([answer.statusCode, answer.json()]).toEqual([409, expect.objectContaining({ error: 'ref_mismatch', current_oid: second })]);
  });
});
