import { describe, expect, it } from 'vitest';
import { bindingArray, sqlParameters } from './sql-parameters.ts';

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

  it('refuses a parameter index past SQLite limits', () => {
    expect(() => bindingArray('SELECT ?99999999', [], [])).toThrow(expect.objectContaining({ code: 'SQLITE_RANGE' }));
  });
});
