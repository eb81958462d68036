import { describe, expect, it } from 'vitest';
import { BOUNDS_EXTENSION } from './libsql-engine.ts';
import { Connection } from './libsql-native.ts';

// cw-db's replacements of instr, replace, trim, LIKE and GLOB (bounds/cw-sqlite-bounds.c) answer what SQLite's
// built-ins answer, on every kind of value: compared against a connection without them.
const plain = new Connection(':memory:');
const bounded = new Connection(':memory:');
bounded.loadExtension(BOUNDS_EXTENSION);
for (const db of [plain, bounded]) db.defaultSafeIntegers(true);

const answer = (db: Connection, sql: string): unknown => {
  try {
    return db.prepare(sql).raw(true).get([]);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

const EXPRESSIONS = [
  "instr('hello', 'll')",
  "instr('hello', 'z')",
  "instr('hello', '')",
  "instr('', '')",
  "instr('', 'a')",
  "instr('héllo wörld', 'wö')",
  "instr('ééé', 'é')",
  "instr('aéb', 'b')",
  "instr(x'00ff00ff', x'ff')",
  "instr(x'00ff00ff', x'00ff00')",
  "instr(x'6162', 'b')",
  "instr('ab', x'62')",
  'instr(12345, 34)',
  "instr(1.5, '.')",
  "instr(NULL, 'a')",
  "instr('a', NULL)",
  "instr(x'80ff', x'ff')",
  "instr(CAST(x'80ff61' AS TEXT), CAST(x'ff' AS TEXT))",
  "instr(CAST(x'c3a9c3a9' AS TEXT), CAST(x'a9' AS TEXT))",
  "instr(CAST(x'a9c3a9' AS TEXT), CAST(x'a9' AS TEXT))",
  "instr('aaab', 'aab')",
  "replace('a-b-c', '-', '+')",
  "replace('aaa', 'aa', 'b')",
  "replace('abc', '', 'x')",
  "replace('abc', 'b', '')",
  "replace('', 'a', 'b')",
  "replace(NULL, 'a', 'b')",
  "replace('abc', NULL, 'b')",
  "replace('abc', 'b', NULL)",
  "replace(12321, 2, 'x')",
  "replace(x'610062', x'00', 'z')",
  "typeof(replace(x'6162', 'a', 'b'))",
  "replace('héllo', 'é', 'e')",
  "trim('xxhixx', 'x')",
  "ltrim('xxhixx', 'x')",
  "rtrim('xxhixx', 'xy')",
  "trim('ééaéé', 'é')",
  "trim('abc', '')",
  "trim(NULL, 'a')",
  "trim('abc', NULL)",
  'trim(12321, 1)',
  "'Hello' LIKE 'h%'",
  "'Hello' LIKE 'h_llo'",
  "'Hello' NOT LIKE '%z%'",
  "'a_c' LIKE 'a!_c' ESCAPE '!'",
  "'abc' LIKE 'a!_c' ESCAPE '!'",
  "'abc' LIKE 'abc' ESCAPE 'xy'",
  "'ÉCOLE' LIKE 'école'",
  "NULL LIKE 'a'",
  "'a' LIKE NULL",
  '123 LIKE 12',
  "like('h%', 'Hello')",
  "'abc' GLOB 'a*'",
  "'abc' GLOB 'A*'",
  "'abc' GLOB '[a-c]b?'",
  "'abc' GLOB '[^a]*'",
  "'héllo' GLOB 'h?llo'",
  "glob('a*', 'abc')",
  "x'616263' GLOB 'a*'",
  'json_patch(\'{"a":1,"b":{"c":2}}\', \'{"b":{"c":null,"d":3}}\')',
  'json_array(json_patch(\'{"a":1}\', \'{"b":2}\'))',
  "json_patch('[1]', '{}')",
  "json_patch('not json', '{}')",
  "json_patch(NULL, '{}')",
  'hex(jsonb_patch(\'{"a":1}\', \'{"a":null}\'))',
  'json(jsonb_patch(jsonb(\'{"a":1}\'), \'{"b":2}\'))',
];

describe('cw-db’s bounded SQL functions', () => {
  it('answer what SQLite’s built-ins answer', () => {
    for (const expression of EXPRESSIONS) expect(answer(bounded, `SELECT ${expression}`), expression).toEqual(answer(plain, `SELECT ${expression}`));
  });

  it('share one private connection among a thread’s connections, which keeps serving as they close', () => {
    const open = () => {
      const db = new Connection(':memory:');
      db.loadExtension(BOUNDS_EXTENSION);
      return db;
    };
    const like = (db: Connection) => db.prepare("SELECT 'abc' LIKE 'A%', trim('xax', 'x')").raw(true).get([]);
    const [first, second] = [open(), open()];
    first.close();
    expect(like(second)).toEqual([1, 'a']);
    second.close();
    const third = open();
    expect(like(third)).toEqual([1, 'a']);
    third.close();
  });

  it('keep working in views and indexes of a database with untrusted schema', () => {
    bounded.exec("PRAGMA trusted_schema = OFF; CREATE TABLE t (v TEXT); CREATE INDEX t_instr ON t (instr(v, 'b')); CREATE VIEW w AS SELECT replace(v, 'a', 'x') AS r FROM t WHERE v LIKE 'a%'");
    bounded.exec("INSERT INTO t VALUES ('abc'), ('bcd')");
    expect(bounded.prepare('SELECT r FROM w').raw(true).all([])).toEqual([['xbc']]);
    expect(bounded.prepare("SELECT v FROM t WHERE instr(v, 'b') = 1").raw(true).all([])).toEqual([['bcd']]);
  });

  it('refuse what would take long in one call, and values past 8 MiB', () => {
    expect(answer(bounded, "SELECT printf('%.*c', 4000000, 'a') LIKE '%' || printf('%.*c', 4000, 'a') || 'b'")).toMatch(/like\(\): its arguments are too long together/);
    expect(answer(bounded, "SELECT length(trim(printf('%.*c', 4000000, 'a'), printf('%.*c', 100000, 'b')))")).toMatch(/trim\(\): its arguments are too long together/);
    expect(answer(bounded, 'SELECT length(zeroblob(9000000))')).toMatch(/too big/);
    // Objects of 10,000 keys each: 2 s in one call (40,000: 30 s).
    const object = (prefix: string) => `(SELECT json_group_object('${prefix}' || value, 1) FROM generate_series(1, 10000))`;
    expect(answer(bounded, `SELECT length(json_patch(${object('k')}, ${object('j')}))`)).toMatch(/json_patch\(\): its arguments are too long together/);
    expect(answer(bounded, "SELECT length(replace(printf('%.*c', 5000000, 'a'), 'a', 'bb'))")).toMatch(/too big/);
    // Searches are linear in both lengths, and answer.
    expect(answer(bounded, "SELECT instr(printf('%.*c', 4000000, 'a'), printf('%.*c', 2000000, 'a') || 'b')")).toEqual([0n]);
  });
});
