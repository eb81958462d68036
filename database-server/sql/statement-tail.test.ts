import { describe, expect, it } from 'vitest';
import { hasStatementAfterFirst } from './statement-tail.ts';

describe('hasStatementAfterFirst', () => {
  it.each([
    ['select 1', false],
    ['select 1;', false],
    ['select 1;;  ;\n', false],
    [';; select 1;', false],
    ['select 1; -- a comment\n/* and another */ ;', false],
    ['select \';select 2\' as a, "b;c", [d;e], `f;g`;', false],
    ["select 'it''s; fine';", false],
    ['create trigger t after insert on x begin insert into y values (1); update z set a = 1; end; select 3', false],
    ['CREATE TEMP TRIGGER t AFTER INSERT ON x BEGIN SELECT CASE WHEN 1 THEN 2 END; END;', false],
    ['select 1; select 2', true],
    ['insert into t values (1); delete from t', true],
    ['select 1 /* ; */; x', true],
    ["select 1; 'a'", true],
    ['create table trigger_log(x); select 1', true],
  ])('%j → %s', (sql, expected) => {
    expect(hasStatementAfterFirst(sql)).toBe(expected);
  });
});
