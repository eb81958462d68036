import { describe, expect, it } from 'vitest';
import { attachesFiles, createsInTempSchema } from './statement-guards.ts';

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

describe('createsInTempSchema', () => {
  it.each([
    'CREATE VIEW temp.v AS SELECT 1',
    'create trigger TEMP.tr after insert on main.t begin select 1; end',
    'CREATE TABLE temp . t (v)',
    'CREATE TABLE IF NOT EXISTS temp.t (v)',
    'CREATE UNIQUE INDEX temp.i ON t (v)',
    'CREATE VIRTUAL TABLE temp.f USING fts5(v)',
    'CREATE TABLE "temp".t (v)',
    'CREATE TABLE [Temp].t (v)',
    'CREATE TABLE `temp`.t (v)',
    "CREATE TABLE 'temp'.t (v)",
    'CREATE TABLE /* c */ temp /* d */ . t (v)',
    'SELECT 1; CREATE VIEW temp.v AS SELECT 1',
    'CREATE TABLE temp; CREATE VIEW temp.v AS SELECT 1',
    'EXPLAIN CREATE VIEW temp.v AS SELECT 1',
  ])('finds %j', (sql) => expect(createsInTempSchema(sql)).toBe(true));

  it.each([
    'CREATE TABLE t (v)',
    'CREATE TABLE main.t (v)',
    'CREATE TABLE temp (v)',
    'CREATE TABLE "temp" (v)',
    'CREATE TABLE t AS SELECT * FROM temp.x',
    'CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO temp.x VALUES (1); END',
    'SELECT * FROM temp.sqlite_master',
    "INSERT INTO t VALUES ('CREATE VIEW temp.v AS SELECT 1')",
    'CREATE TABLE "temp.t" (v)',
  ])('passes %j', (sql) => expect(createsInTempSchema(sql)).toBe(false));
});
