// Initialize and import fill a pristine repository all or nothing, also against a write through another instance
// between their check of the head and their publish: the one that comes second publishes nothing and answers
// 409 `not_pristine`, even when the refs it would create are not the ones the first created.
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectTokens } from '../../auth/project-tokens.ts';
import { MemoryProjectTokenSource } from '../../auth/testing/memory-project-token-source.ts';
import { twoInstances, type TwoInstances } from '../testing/two-instances.ts';

let bed: TwoInstances | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const committer = { name: 'Ada', email: 'ada@example.com' };

/** A repository `acme/<name>` with one commit on `branch`; answers the commit. */
async function source(t: TwoInstances, name: string, branch: string): Promise<string> {
  expect((await t.b('PUT', `/acme/${name}`)).statusCode).toBe(201);
  const changes = [{ op: 'upsert', path: `${name}.txt`, content: Buffer.from(`${name}\n`).toString('base64'), mode: '100644' }];
  const answer = await t.b('POST', `/acme/${name}/api/commits`, { branch, message: name, committer, changes });
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json<{ oid: string }>().oid;
}

async function branches(t: TwoInstances, repo: string): Promise<string[]> {
  return (await t.b('GET', `/acme/${repo}/api/refs/branches`)).json<{ refs: { name: string }[] }>().refs.map((r) => r.name);
}

describe('writes into a pristine repository racing another', { timeout: 30_000 }, () => {
  it('initialize: the second of two with different branches publishes nothing and answers 409', async () => {
    bed = await twoInstances({ initializeSources: ['acme/template'] });
    const template = await source(bed, 'template', 'main');
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const body = (branch: string) => ({ source: { owner: 'acme', repo: 'template', commit_oid: template }, branch, operation_key: `init-${branch}`, message: 'init', committer });
    const slow = bed.a('POST', '/acme/site/api/initialize', body('main'));
    await bed.gate.reached;
    expect((await bed.b('POST', '/acme/site/api/initialize', body('other'))).statusCode).toBe(201);
    bed.gate.release();
    const answer = await slow;
    expect([answer.statusCode, answer.json<{ error: string }>().error]).toEqual([409, 'not_pristine']);
    expect(await branches(bed, 'site')).toEqual(['other']);
  });

  it("initialize: copies a template only from cw-git's own repository, where projects hold repositories too, not a project's of that name (found in review)", async () => {
    const platform = new MemoryProjectTokenSource();
    bed = await twoInstances({ initializeSources: ['acme/template'], projectTokens: new ProjectTokens(platform) });
    const template = await source(bed, 'template', 'main');
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const body = { source: { owner: 'acme', repo: 'template', commit_oid: template }, branch: 'main', operation_key: 'init', message: 'init', committer };
    const squatted = await bed.b('POST', '/acme/site/api/initialize', body);
    expect([squatted.statusCode, squatted.json<{ error: string }>().error]).toEqual([403, 'source_not_allowed']);
    platform.serviceRepositories.add('acme/template');
    expect((await bed.b('POST', '/acme/site/api/initialize', body)).statusCode).toBe(201);
  });

  it('import: the second of two with disjoint refs publishes nothing and answers 409', async () => {
    bed = await twoInstances({ importSources: ['acme/one', 'acme/two'] });
    await source(bed, 'one', 'a');
    await source(bed, 'two', 'b');
    expect((await bed.b('PUT', '/acme/site')).statusCode).toBe(201);
    const [one, two] = [
      (await bed.b('POST', '/acme/site/api/import/resolve', { source: { owner: 'acme', repo: 'one' } })).json(),
      (await bed.b('POST', '/acme/site/api/import/resolve', { source: { owner: 'acme', repo: 'two' } })).json(),
    ];
    const slow = bed.a('POST', '/acme/site/api/import', { operation_key: 'import-one', snapshot: one });
    await bed.gate.reached;
    const first = await bed.b('POST', '/acme/site/api/import', { operation_key: 'import-two', snapshot: two });
    expect(first.statusCode, first.body).toBe(201);
    bed.gate.release();
    const answer = await slow;
    expect([answer.statusCode, answer.json<{ error: string }>().error]).toEqual([409, 'not_pristine']);
    expect(await branches(bed, 'site')).toEqual(['b']);
  });
});
