import { describe, expect, it } from 'vitest';
import { Connection } from '../../database-server/sql/libsql-native.ts';
import { scriptStatements } from './script-statements.ts';

const TRIGGER = 'CREATE TRIGGER t AFTER INSERT ON x BEGIN INSERT INTO y VALUES (1); UPDATE z SET a = CASE WHEN 1 THEN 2 END; END;';

describe('scriptStatements', () => {
  it.each([
    ['', []],
    [' ;; -- only a comment\n', []],
    ['select 1', ['select 1']],
    ['select 1; select 2;', ['select 1;', 'select 2;']],
    ['/* lead */ select 1 ;;\n  select 2 -- tail', ['select 1 ;', 'select 2']],
    ["select ';', \"a;b\", [c;d], `e;f`, 'it''s;'; select 2", ["select ';', \"a;b\", [c;d], `e;f`, 'it''s;';", 'select 2']],
    [`${TRIGGER} select 3`, [TRIGGER, 'select 3']],
    ['create temp trigger g after delete on x begin select 1; end; drop table x', ['create temp trigger g after delete on x begin select 1; end;', 'drop table x']],
    ['explain query plan create trigger g after delete on x begin select 1; end; select 2', ['explain query plan create trigger g after delete on x begin select 1; end;', 'select 2']],
    ['create table trigger_log(x); create table "end"(y); select 1', ['create table trigger_log(x);', 'create table "end"(y);', 'select 1']],
    ['drop table a; create table b as select * from c', ['drop table a;', 'create table b as select * from c']],
    ["insert into a values ('x;y', \"it's;\"); /* ; */ select [a;b] -- ;\n from t;", ["insert into a values ('x;y', \"it's;\");", 'select [a;b] -- ;\n from t;']],
    ["insert into a values ('it''s; ok'); select `a;``b`;", ["insert into a values ('it''s; ok');", 'select `a;``b`;']],
    ['select case when 1 then 2 end; select 3;', ['select case when 1 then 2 end;', 'select 3;']],
    // Found by a differential test against SQLite (review-157 F4): a TCL-style variable is one token up to `)`, and a NUL ends the script.
    ['select $a(;end;) is null; select 2', ['select $a(;end;) is null;', 'select 2']],
    ['select :a::b(x;y), @c(;); select #d(;)', ['select :a::b(x;y), @c(;);', 'select #d(;)']],
    ['select $a(x ;y); select 2', ['select $a(x ;', 'y);', 'select 2']],
    ['insert into t values(1)\0;insert into t values(2);', ['insert into t values(1)']],
  ])('%j', (sql, expected) => {
    expect(scriptStatements(sql)).toEqual(expected);
  });

  it("runs, one statement after another, as SQLite runs the whole script (a trigger's body and a CASE … END in it included)", () => {
    const script = `CREATE TABLE x (n); CREATE TABLE y (n); CREATE TABLE z (a); INSERT INTO z VALUES (0);\n${TRIGGER}\nINSERT INTO x VALUES (1); -- fires it\nSELECT 'a;b' AS s;`;
    const rows = (db: Connection) => db.prepare('SELECT (SELECT count(*) FROM y), (SELECT a FROM z)').raw(true).get([]);
    const whole = new Connection(':memory:');
    whole.exec(script);
    const split = new Connection(':memory:');
    for (const statement of scriptStatements(script)) split.exec(statement);
    expect(rows(split)).toEqual(rows(whole));
    expect(rows(split)).toEqual([1, 2]);
  });

  it('keeps a TCL-style variable whole, as SQLite reads it (a piece cut inside it would not prepare)', () => {
    const db = new Connection(':memory:');
    const [first] = scriptStatements('SELECT $a(;end;) IS NULL AS n; SELECT 2');
    expect(db.prepare(first!).raw(true).get([null])).toEqual([1]);
  });
});
