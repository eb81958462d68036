import { afterAll, describe, expect, it } from 'vitest';
import { AnswerConversionError, AnswerConverter, convertHere, INLINE_ANSWER_BYTES } from './answer-converter.ts';

/** cw-db's answer to one `execute` of `rows` rows of one text column. */
function executeAnswer(rows: number, text: string): Buffer {
  const result = { cols: [{ name: 'v' }], rows: Array.from({ length: rows }, () => [{ type: 'text', value: text }]), affected_row_count: 0, last_insert_rowid: null };
  return Buffer.from(
    JSON.stringify({
      baton: null,
      results: [
        { type: 'ok', response: { type: 'execute', result } },
        { type: 'ok', response: { type: 'close' } },
      ],
    }),
  );
}

const converter = new AnswerConverter();
afterAll(() => converter.close());

describe('AnswerConverter', () => {
  it('converts a large answer on its thread, to the same JSON as on the caller’s, while the caller’s event loop runs on', async () => {
    const answer = executeAnswer(4000, 'x'.repeat(2000)); // 8 MB: tens of milliseconds to parse and write again
    const expected = convertHere(answer, 1);
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 0);
    const converted = await converter.convert(answer, 1);
    clearInterval(ticking);
    // On the caller's thread, no timer could have run before the conversion ended.
    expect(ticks).toBeGreaterThan(0);
    // Buffer.equals, not toEqual: a deep comparison of 8 MB, byte by byte, took seconds of the test's time.
    expect('json' in converted && 'json' in expected && converted.json.equals(expected.json)).toBe(true);
    // Its bytes were moved to the thread, not copied.
    expect(answer.byteLength).toBe(0);
    expect('json' in converted && (JSON.parse(converted.json.toString()) as { results: { rows: unknown[] }[] }).results[0]?.rows).toHaveLength(4000);
  });

  it('converts a small answer on the caller’s thread, at once', async () => {
    const answer = executeAnswer(2, 'small');
    expect(answer.byteLength).toBeLessThanOrEqual(INLINE_ANSWER_BYTES);
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 0);
    const converted = await converter.convert(answer, 1);
    clearInterval(ticking);
    expect(ticks).toBe(0);
    expect('json' in converted && JSON.parse(converted.json.toString())).toEqual({
      results: [{ columns: ['v'], rows: [['small'], ['small']], rows_read: 2, rows_written: 0, changes: 0, last_insert_id: null }],
    });
  });

  it('says what a large answer says instead of results: a failed statement, something not JSON', async () => {
    const rows = executeAnswer(200, 'y'.repeat(1000)).toString();
    const failedBatch = Buffer.from(
      JSON.stringify({
        baton: null,
        results: [
          {
            type: 'ok',
            response: {
              type: 'batch',
              result: { step_results: [{}, JSON.parse(rows).results[0].response.result, null, null, {}], step_errors: [null, null, { message: 'no such table: u', code: 'SQLITE_ERROR' }, null, null] },
            },
          },
        ],
      }),
    );
    expect(failedBatch.byteLength).toBeGreaterThan(INLINE_ANSWER_BYTES);
    expect(await converter.convert(failedBatch, 2)).toEqual({ failed: { error: { message: 'no such table: u', code: 'SQLITE_ERROR' }, statement: 1 } });
    expect(await converter.convert(Buffer.from(`{${'x'.repeat(INLINE_ANSWER_BYTES)}`), 1)).toEqual({ notJson: true });
  });

  it('converts a slice of a larger buffer, leaving the buffer usable', async () => {
    const answer = executeAnswer(100, 'z'.repeat(1000));
    const larger = Buffer.concat([Buffer.from('prefix'), answer]);
    const slice = larger.subarray(6);
    expect('json' in (await converter.convert(slice, 1))).toBe(true);
    expect(larger.subarray(0, 6).toString()).toBe('prefix');
  });

  it('fails an answer the thread cannot read alone, the others converted (found in review)', async () => {
    const malformed = Buffer.from(JSON.stringify({ padding: 'p'.repeat(INLINE_ANSWER_BYTES), results: [{ type: 'ok', response: { result: null } }] }));
    const [bad, good] = await Promise.allSettled([converter.convert(malformed, 2), converter.convert(executeAnswer(100, 'g'.repeat(1000)), 1)]);
    expect(bad).toMatchObject({ status: 'rejected', reason: expect.any(AnswerConversionError) });
    expect(good.status === 'fulfilled' && 'json' in good.value).toBe(true);
  });

  it('refuses to convert once closed, rather than starting a thread again (found in review)', async () => {
    const closed = new AnswerConverter();
    await closed.close();
    await expect(closed.convert(executeAnswer(100, 'c'.repeat(1000)), 1)).rejects.toThrow(AnswerConversionError);
  });
});
