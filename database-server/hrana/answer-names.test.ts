import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COLUMN_NAME_CHARS } from '../sql/answer-size.ts';
import { MAX_ERROR_MESSAGE_CHARS } from './stream.ts';
import { failure, startEngineTestbed, type EngineTestbed } from './testing/engine-testbed.ts';

// What a result says besides its rows (column names and declared types, error messages, descriptions) is answered
// too, and counted in the answer's bounds: a stored statement naming a 900 KB column, run by many batch steps,
// answered 180 MB for a 0.9 MB request and, at 2,000 steps, took its shard down (review-184 H5).
const KIB = 1024;
const STATEMENT_BYTES = 64 * KIB;
const REQUEST_BYTES = 256 * KIB;
const LONG = 'x'.repeat(200_000);
let testbed: EngineTestbed;

beforeAll(async () => {
  testbed = await startEngineTestbed({
    prefix: 'cw-db-answer-names-',
    engine: { maxPipelineAnswerBytes: REQUEST_BYTES, answer: { maxRows: 1_000_000, maxBytes: STATEMENT_BYTES } },
  });
});

afterAll(async () => {
  await testbed.close();
});

/** A pipeline request's answer: its status, its size in bytes, its results. */
async function pipeline(requests: unknown[]): Promise<{ status: number; bytes: number; results: { type: string; response?: Record<string, unknown>; error?: { code: string; message: string } }[] }> {
  const response = await fetch(`http://127.0.0.1:${testbed.server.port}/v1/names/v2/pipeline`, { method: 'POST', body: JSON.stringify({ requests: [...requests, { type: 'close' }] }) });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), ...(JSON.parse(text) as { results: [] }) };
}

const stored = (sql: string) => ({ type: 'store_sql', sql_id: 1, sql });
const steps = (n: number) => ({ type: 'batch', batch: { steps: Array.from({ length: n }, () => ({ stmt: { sql_id: 1 } })) } });

describe('what a result says besides its rows', () => {
  it('cuts a long column name, as the official client sees it', async () => {
    const client = testbed.connect('names');
    const result = await client.execute(`SELECT 1 AS "${'é'.repeat(5000)}", 2 AS short`);
    expect(result.columns[0]).toBe('é'.repeat(MAX_COLUMN_NAME_CHARS));
    expect(result.columns[1]).toBe('short');
    expect(result.rows[0]?.short).toBe(2);
  });

  it('counts column names in the request’s answer: a stored statement with a 200 KB name, run by 100 batch steps, answers at most the request’s bound', async () => {
    const { status, bytes, results } = await pipeline([stored(`SELECT 1 AS "${LONG}"`), steps(100)]);
    expect(status).toBe(200);
    // Uncounted, 100 steps answered 20 MB; cut to 4 Ki and counted, the steps past the request's bound fail.
    expect(bytes).toBeLessThan(REQUEST_BYTES + 32 * KIB);
    const batch = results[1]?.response?.result as { step_results: unknown[]; step_errors: ({ code: string } | null)[] };
    expect(batch.step_results[0]).toMatchObject({ cols: [{ name: 'x'.repeat(MAX_COLUMN_NAME_CHARS) }] });
    expect(batch.step_errors.at(-1)).toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('refuses a statement whose column names alone pass its bound, before any row', async () => {
    const columns = Array.from({ length: 20 }, (_, i) => `${i} AS "${'c'.repeat(MAX_COLUMN_NAME_CHARS - 4)}${i}"`).join(', ');
    const error = await failure(testbed.connect('names'), `SELECT ${columns}`);
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
    expect(error.message).toMatch(/names of its columns/);
    // Also when its rows are not wanted: the columns are answered all the same.
    const { results } = await pipeline([{ type: 'execute', stmt: { sql: `SELECT ${columns}`, want_rows: false } }]);
    expect(results[0]?.error?.code).toBe('RESPONSE_TOO_LARGE');
  });

  it('cuts long error messages and counts them in the request’s answer', async () => {
    const { status, bytes, results } = await pipeline([stored(`SELECT * FROM "${LONG}"`), steps(200)]);
    expect(status).toBe(200);
    expect(bytes).toBeLessThan(REQUEST_BYTES + 64 * KIB);
    const errors = (results[1]?.response?.result as { step_errors: { code: string; message: string }[] } | undefined)?.step_errors ?? [];
    expect(errors[0]?.message).toMatch(/^no such table: x+$/);
    expect(errors[0]?.message.length).toBe(MAX_ERROR_MESSAGE_CHARS);
    expect(errors.at(-1)?.code).toBe('RESPONSE_TOO_LARGE');
  });

  it('counts descriptions in the request’s answer', async () => {
    const describe = { type: 'describe', sql_id: 1 };
    const { status, bytes, results } = await pipeline([stored(`SELECT 1 AS "${LONG}"`), ...Array.from({ length: 100 }, () => describe)]);
    expect(status).toBe(200);
    expect(bytes).toBeLessThan(REQUEST_BYTES + 32 * KIB);
    expect(results[1]?.response?.result).toMatchObject({ cols: [{ name: 'x'.repeat(MAX_COLUMN_NAME_CHARS) }] });
    expect(results.at(-2)?.error?.code).toBe('RESPONSE_TOO_LARGE');
  });
});
