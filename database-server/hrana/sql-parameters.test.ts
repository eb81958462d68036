import { describe, expect, it } from 'vitest';
import { Connection } from '../sql/libsql-native.ts';
import { bindingArray, sqlParameters } from './sql-parameters.ts';
import { cpuTimeMs } from '../../src/testing/cpu-time.ts';

describe('SQL parameters', () => {
  it('numbers parameters as SQLite does', () => {
    expect(sqlParameters('SELECT ?, ?5, ?, :a, @b, $c, :a, ?')).toEqual([
      { index: 1, name: null },
      { index: 5, name: null },
      { index: 6, name: null },
      { index: 7, name: ':a' },
      { index: 8, name: '@b' },
      { index: 9, name: '$c' },
      { index: 10, name: null },
    ]);
  });

  it('reads named parameters as tokenize.c does: `::`, a TCL-style suffix to `)` or ASCII whitespace, `#name` (checked against SQLite)', () => {
    const db = new Connection(':memory:');
    for (const [sql, named, expected] of [
      ['SELECT $a(\u00a0?) AS a, :b AS b', { ':b': 5 }, [null, 5]],
      ['SELECT $::x AS a, :b AS b', { '$::x': 7, ':b': 5 }, [7, 5]],
      ['SELECT $a::b(x;y) AS a, #c AS b', { '$a::b(x;y)': 1, '#c': 2 }, [1, 2]],
    ] as const) {
      const args = Object.entries(named).map(([name, value]) => ({ name, value: BigInt(value) }));
      expect(
        db
          .prepare(sql)
          .raw(true)
          .get(bindingArray(sql, [], args)),
      ).toEqual(expected.map((v) => (v === null ? null : v)));
    }
  });

  it('ignores ? and :x inside strings, quoted identifiers and comments', () => {
    const sql = `SELECT '?', 'it''s :x', "?", \`:y\`, [?], -- ? :z
      /* ? :w */ :real, x'3f'`;
    expect(sqlParameters(sql)).toEqual([{ index: 1, name: ':real' }]);
  });

  it('binds positional args by index and named ones by name, with or without the sigil', () => {
    expect(
      bindingArray(
        'SELECT ?, :a, @b, ?4',
        [1n],
        [
          { name: 'a', value: 'A' },
          { name: '@b', value: 'B' },
          { name: '4', value: 4n },
        ],
      ),
    ).toEqual([1n, 'A', 'B', 4n]);
  });

  it('binds NULL to parameters without a value and ignores names the SQL does not have', () => {
    expect(
      bindingArray(
        'SELECT :a, :b',
        [],
        [
          { name: ':b', value: 2 },
          { name: 'zz', value: 3 },
        ],
      ),
    ).toEqual([null, 2]);
  });

  it('refuses a parameter index past SQLite limits, and more named arguments than parameters may be', () => {
    expect(() => bindingArray('SELECT ?99999999', [], [])).toThrow(expect.objectContaining({ code: 'SQLITE_RANGE' }));
    const tooMany = Array.from({ length: 32_767 }, (_, i) => ({ name: `a${i}`, value: null }));
    expect(() => bindingArray('SELECT :a0', [], tooMany)).toThrow(expect.objectContaining({ code: 'SQLITE_RANGE' }));
  });

  it('binds the most named arguments against the most parameters in linear time (a search per argument held a shard for minutes)', () => {
    const sql = `SELECT ${Array.from({ length: 32_000 }, (_, i) => `:p${i}`).join(',')}`;
    const named = Array.from({ length: 32_000 }, (_, i) => ({ name: i % 2 === 0 ? `p${i}` : `nomatch${i}`, value: i }));
    let values: unknown[] = [];
    expect(cpuTimeMs(() => (values = bindingArray(sql, [], named)))).toBeLessThan(1000);
    expect(values[0]).toBe(0);
    expect(values[1]).toBeNull();
    expect(values[31_998]).toBe(31_998);
  });
});
