import { describe, expect, it } from 'vitest';
import { appTokenGeneration } from '../src/platform/databases/app-tokens.ts';
import { databaseTokenSha256 } from '../src/platform/databases/database-token.ts';
import { AppTokenReader } from './app-token-reader.ts';
import type { SecretObject } from '../src/kube/index.ts';
import type { LinkedValue } from './database-links.ts';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const generationOf = (full: string, readOnly: string) => appTokenGeneration(databaseTokenSha256(full), databaseTokenSha256(readOnly));

function secret(full: string, readOnly: string, ownerUid = 'u-1'): SecretObject {
  return {
    metadata: { name: 'orders-app-tokens', namespace: 'p1', ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Database', name: 'orders', uid: ownerUid, controller: true }] },
    data: { FULL_TOKEN: b64(full), READ_ONLY_TOKEN: b64(readOnly) },
  };
}
const value = (generation: string, key = 'READ_ONLY_TOKEN'): LinkedValue => ({ kind: 'token', variable: 'DB', database: 'orders', uid: 'u-1', secret: 'orders-app-tokens', key, generation });

/** A reader over one stored Secret (a fake of the apiserver's GET: the port is one call), counting its reads. */
function reader(stored: () => SecretObject | undefined) {
  const reads: string[] = [];
  return {
    reads,
    tokens: new AppTokenReader(async (namespace, name) => {
      reads.push(`${namespace}/${name}`);
      return stored();
    }),
  };
}

describe('AppTokenReader', () => {
  it('reads the token of the access asked for, and reads the Secret again only when the generation moves', async () => {
    let current = secret('cwdb_full1', 'cwdb_ro1');
    const { tokens, reads } = reader(() => current);
    const g1 = generationOf('cwdb_full1', 'cwdb_ro1');
    expect(await tokens.read('p1', [value(g1), { ...value(g1, 'FULL_TOKEN'), variable: 'W' }])).toEqual({ env: { DB: 'cwdb_ro1', W: 'cwdb_full1' } });
    expect(await tokens.read('p1', [value(g1)])).toEqual({ env: { DB: 'cwdb_ro1' } });
    expect(reads).toHaveLength(1);
    current = secret('cwdb_full2', 'cwdb_ro2');
    expect(await tokens.read('p1', [value(generationOf('cwdb_full2', 'cwdb_ro2'))])).toEqual({ env: { DB: 'cwdb_ro2' } });
    expect(reads).toHaveLength(2);
  });

  it('does not bind tokens cw-db does not accept yet (minted again, status not moved), a Secret someone else made, or none', async () => {
    const g1 = generationOf('cwdb_full1', 'cwdb_ro1');
    const rotatedEarly = reader(() => secret('cwdb_full2', 'cwdb_ro2'));
    expect(await rotatedEarly.tokens.read('p1', [value(g1)])).toEqual({
      problem: { reason: 'DatabaseNotReady', message: 'Variable DB names Database orders, but its tokens are being rotated.' },
    });
    const forged = reader(() => secret('cwdb_full1', 'cwdb_ro1', 'someone-else'));
    expect(await forged.tokens.read('p1', [value(g1)])).toMatchObject({ problem: { reason: 'DatabaseNotReady' } });
    const missing = reader(() => undefined);
    expect(await missing.tokens.read('p1', [value(g1)])).toEqual({
      problem: { reason: 'DatabaseNotReady', message: 'Variable DB names Database orders, but its Secret orders-app-tokens is not there yet.' },
    });
  });

  it('reports a namespace whose Secrets the runtime may not read (no project there), and throws other failures', async () => {
    const forbidden = new AppTokenReader(async () => {
      throw Object.assign(new Error('forbidden'), { code: 403 });
    });
    expect(await forbidden.read('default', [value('g')])).toMatchObject({ problem: { reason: 'DatabaseNotReady', message: expect.stringMatching(/may not read Secrets in namespace default/) } });
    const down = new AppTokenReader(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    await expect(down.read('p1', [value('g')])).rejects.toThrow(/ECONNREFUSED/);
  });
});
