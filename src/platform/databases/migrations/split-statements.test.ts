import { describe, expect, it } from 'vitest';
import { splitStatements } from './split-statements.ts';

describe('splitStatements', () => {
  it.each([
    ['one statement without a semicolon', 'CREATE TABLE a (x)', ['CREATE TABLE a (x)']],
    ['statements at semicolons, blanks and comment-only pieces dropped', 'CREATE TABLE a (x);\n-- a note\n;\nINSERT INTO a VALUES (1);  ', ['CREATE TABLE a (x);', 'INSERT INTO a VALUES (1);']],
    [
      'semicolons in strings, quoted names and comments',
      "INSERT INTO a VALUES ('x;y', \"it's;\"); /* ; */ SELECT [a;b] -- ;\n FROM t;",
      ["INSERT INTO a VALUES ('x;y', \"it's;\");", '/* ; */ SELECT [a;b] -- ;\n FROM t;'],
    ],
    ['doubled quotes', "INSERT INTO a VALUES ('it''s; ok'); SELECT 1;", ["INSERT INTO a VALUES ('it''s; ok');", 'SELECT 1;']],
    [
      'a trigger whole, with a CASE inside',
      'CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN\n  UPDATE a SET x = CASE WHEN new.x > 0 THEN 1 END;\n  DELETE FROM b;\nEND;\nSELECT 1;',
      ['CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN\n  UPDATE a SET x = CASE WHEN new.x > 0 THEN 1 END;\n  DELETE FROM b;\nEND;', 'SELECT 1;'],
    ],
    ['a CASE outside a trigger does not hold the split', 'SELECT CASE WHEN 1 THEN 2 END; SELECT 3;', ['SELECT CASE WHEN 1 THEN 2 END;', 'SELECT 3;']],
  ])('%s', (_name, sql, statements) => {
    expect(splitStatements(sql)).toEqual(statements);
  });
});
