import { describe, expect, it } from 'vitest';
import { takeStatements } from './sql-statements.ts';

describe('takeStatements', () => {
  it('splits at each semicolon outside strings, names and comments', () => {
    expect(takeStatements("select 1 as a; select ';' as [b;c], \"d;\" -- e;\n; select 'it''s';\n")).toEqual({
      statements: ['select 1 as a;', 'select \';\' as [b;c], "d;" -- e;\n;', "select 'it''s';"],
      rest: '\n',
    });
  });

  it('keeps an unfinished statement for the next line', () => {
    expect(takeStatements('select 1; select\n  2')).toEqual({ statements: ['select 1;'], rest: ' select\n  2' });
    expect(takeStatements('select 1 /* ; */')).toEqual({ statements: [], rest: 'select 1 /* ; */' });
  });

  it('ends a CREATE TRIGGER only at the semicolon after its END', () => {
    const trigger = 'CREATE TEMP TRIGGER t AFTER INSERT ON x BEGIN INSERT INTO y VALUES (1); DELETE FROM z; END;';
    expect(takeStatements(`${trigger} select 2;`)).toEqual({ statements: [trigger, 'select 2;'], rest: '' });
    expect(takeStatements('create trigger t after insert on x begin select 1;')).toEqual({ statements: [], rest: 'create trigger t after insert on x begin select 1;' });
  });

  it("does not end a CREATE TRIGGER at a CASE's END (found in review: sent as two broken statements)", () => {
    const trigger = 'CREATE TRIGGER t AFTER INSERT ON x BEGIN UPDATE y SET a = CASE WHEN new.b THEN 1 ELSE 2 END; END;';
    expect(takeStatements(`${trigger} select 2;`)).toEqual({ statements: [trigger, 'select 2;'], rest: '' });
    expect(takeStatements('create trigger t after insert on x begin select case when 1 then 2 end;')).toEqual({
      statements: [],
      rest: 'create trigger t after insert on x begin select case when 1 then 2 end;',
    });
  });

  it('skips empty statements', () => {
    expect(takeStatements(';;  ; select 1;;')).toEqual({ statements: ['select 1;'], rest: '' });
  });
});
