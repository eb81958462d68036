// One statement's SQL text is bounded: SQLite compiles a statement whole before anything can interrupt it, so its
// length bounds what a tenant holds its shard for past the statement cap (a hostile run's 4 MiB VALUES list took
// 280 ms each, 77 of 77 uncut). Through the official client against the real server on the real engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startEngineTestbed, type EngineTestbed } from './testing/engine-testbed.ts';

let testbed: EngineTestbed;

beforeAll(async () => {
  testbed = await startEngineTestbed({ prefix: 'cw-statement-length-' });
});

afterAll(async () => {
  await testbed?.close();
});

/** `SELECT count(*) FROM (VALUES (0),(1),…)` of about `bytes` characters. */
function valuesList(bytes: number): string {
  const parts: string[] = [];
  let length = 40;
  for (let i = 0; length < bytes; i++) {
    const part = `(${i})`;
    parts.push(part);
    length += part.length + 1;
  }
  return `SELECT count(*) AS n FROM (VALUES ${parts.join(',')})`;
}

describe('a statement’s SQL text', () => {
  it('runs up to 1 MiB, and past it fails with SQL_TOO_LONG naming the bound', async () => {
    const client = testbed.connect('long');
    const fits = valuesList(1024 * 1024 - 64);
    expect(fits.length).toBeLessThanOrEqual(1024 * 1024);
    expect((await client.execute(fits)).rows[0]?.n).toBeGreaterThan(100_000);

    const error = await failure(client, valuesList(1024 * 1024 + 64));
    expect(error.code).toBe('SQL_TOO_LONG');
    expect(error.message).toContain('at most 1 MiB');
  });
});
