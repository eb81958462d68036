import { describe, expect, it } from 'vitest';
import { attachesFiles } from './attach-guard.ts';

describe('attachesFiles', () => {
  it.each([
    'ATTACH ? AS x',
    "attach database 'a' || 'b' as x",
    '  \n\tATTACH(?) AS x',
    '-- note\nATTACH ? AS x',
    '/* c */ATTACH ? AS x',
    'SELECT 1; DETACH x',
    "SELECT ';'; ATTACH ? AS x",
    'EXPLAIN ATTACH ? AS x',
    'explain query plan attach ? as x',
    ';;ATTACH ? AS x',
  ])('finds %j', (sql) => expect(attachesFiles(sql)).toBe(true));

  it.each([
    'SELECT 1',
    "SELECT 'ATTACH ? AS x'",
    'SELECT "attach" FROM t',
    'CREATE TABLE [attach] (v)',
    'SELECT 1 -- ; ATTACH ? AS x',
    'SELECT 1 /* ; ATTACH ? AS x */',
    "INSERT INTO t VALUES ('it''s; ATTACH x')",
    'SELECT attach FROM "t"',
    'EXPLAIN SELECT 1',
  ])('passes %j', (sql) => expect(attachesFiles(sql)).toBe(false));
});
