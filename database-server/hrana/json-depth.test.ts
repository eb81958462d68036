import { describe, expect, it } from 'vitest';
import { cpuTimeMs } from '../../src/testing/cpu-time.ts';
import { jsonDepthWithin, MAX_JSON_DEPTH } from './json-depth.ts';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('jsonDepthWithin', () => {
  it('accepts nesting up to the bound and refuses one level more, arrays and objects alike', () => {
    expect(jsonDepthWithin(nested(MAX_JSON_DEPTH))).toBe(true);
    expect(jsonDepthWithin(nested(MAX_JSON_DEPTH + 1))).toBe(false);
    expect(jsonDepthWithin('{"a":'.repeat(4) + '1' + '}'.repeat(4), 4)).toBe(true);
    expect(jsonDepthWithin('{"a":'.repeat(5) + '1' + '}'.repeat(5), 4)).toBe(false);
    expect(jsonDepthWithin('[{"a":[{"b":1}]}]', 3)).toBe(false);
    expect(jsonDepthWithin('[{"a":[{"b":1}]}]', 4)).toBe(true);
  });

  it('counts depth, not brackets: siblings do not add up', () => {
    expect(jsonDepthWithin(`[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`, 3)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    expect(jsonDepthWithin(JSON.stringify({ sql: '[[[[[[{{{{{{' }), 1)).toBe(true);
    expect(jsonDepthWithin(JSON.stringify({ sql: 'a "quoted" [[[[[[' }), 1)).toBe(true);
    expect(jsonDepthWithin(JSON.stringify({ sql: 'ends in a backslash \\', b: '[[[[' }), 1)).toBe(true);
    expect(jsonDepthWithin(JSON.stringify(['\\"[[[[[', ['x']]), 2)).toBe(true);
    // A backslash escaping a quote keeps the string open; the brackets after the real end count again.
    expect(jsonDepthWithin('["\\"[[[[", [[[1]]]]', 3)).toBe(false);
  });

  it('the Hrana requests the official client sends pass', () => {
    const batch = {
      baton: null,
      requests: [
        {
          type: 'batch',
          batch: {
            steps: [
              { stmt: { sql: 'BEGIN' } },
              { stmt: { sql: 'INSERT INTO t VALUES (?)', args: [{ type: 'text', value: '[{"json": ["in", "a", "value"]}]' }] }, condition: { type: 'ok', step: 0 } },
              {
                stmt: { sql: 'COMMIT' },
                condition: {
                  type: 'and',
                  conds: [
                    { type: 'ok', step: 1 },
                    { type: 'not', cond: { type: 'is_autocommit' } },
                  ],
                },
              },
              {
                stmt: { sql: 'ROLLBACK' },
                condition: {
                  type: 'and',
                  conds: [
                    { type: 'not', cond: { type: 'ok', step: 2 } },
                    { type: 'not', cond: { type: 'is_autocommit' } },
                  ],
                },
              },
            ],
          },
        },
        { type: 'close' },
      ],
    };
    expect(jsonDepthWithin(JSON.stringify(batch))).toBe(true);
    expect(jsonDepthWithin(JSON.stringify({ type: 'request', request_id: 1, request: { type: 'open_cursor', stream_id: 1, cursor_id: 1, batch: batch.requests[0]!.batch } }))).toBe(true);
  });

  it('is linear: 10 MiB nested millions deep, or of strings, in well under a second of CPU', () => {
    const deep = nested(5 * 1024 * 1024);
    const strings = JSON.stringify(Array.from({ length: 100_000 }, () => 'x\\"[{'.repeat(20)));
    const took = cpuTimeMs(() => {
      expect(jsonDepthWithin(deep)).toBe(false);
      // Refused at the first bracket past the bound: the rest of the text is not even read, so read a long flat one too.
      expect(jsonDepthWithin(`[${'[1],'.repeat(2_500_000)}1]`)).toBe(true);
      expect(jsonDepthWithin(strings)).toBe(true);
    });
    expect(took).toBeLessThan(1000);
  });
});
