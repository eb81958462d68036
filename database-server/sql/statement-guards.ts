// Statements the sandbox's authorizer cannot tell apart, refused here before SQLite sees them. Both kinds exist only
// as statements of their own (no trigger or view runs one, and the one function that runs SQL text, `sha3_query`, is
// denied: sandbox.ts), so looking at the first words of each statement is enough.
//
// - ATTACH and DETACH: the authorizer's rule matches only a file name that is a string literal; SQLite passes no
//   name for any other expression (`ATTACH ? AS x`, `ATTACH 'a' || 'b'`), the addon then reports an unknown action,
//   and unknown actions fall to the default, allow.
// - An object created in the temp schema by naming it (`CREATE TRIGGER temp.t …`): SQLite asks the authorizer as for
//   one in the main schema and gives the schema's name only in an argument the addon's rules cannot match. A TEMP
//   trigger lives on the database's shared connection, unseen by its owner, and fires for every later caller.

import { SqlLexer, type SqlTokenKind } from '../../src/sql/sql-tokens.ts';

/** Statement-initial keywords that reach another database file. */
const FILE_STATEMENTS = new Set(['attach', 'detach']);

/** What may stand between CREATE and the kind of object it creates, and the kinds a schema can hold. */
const CREATE_PREFIXES = new Set(['temp', 'temporary', 'unique', 'virtual']);
const SCHEMA_OBJECTS = new Set(['table', 'view', 'trigger', 'index']);
/** IF NOT EXISTS: none of the three can be a bare schema name. */
const IF_NOT_EXISTS = new Set(['if', 'not', 'exists']);

/** Whether any statement of `sql` (one or several, `;`-separated) is an ATTACH or DETACH, EXPLAIN'd or not. */
export function attachesFiles(sql: string): boolean {
  return someStatement(sql, (lexer) => FILE_STATEMENTS.has(lexer.word));
}

/** Whether any statement of `sql` creates a table, view, trigger or index named into the temp schema (`temp.x`). */
export function createsInTempSchema(sql: string): boolean {
  return someStatement(sql, (lexer) => {
    if (lexer.word !== 'create') return false;
    let kind = lexer.next();
    while (kind === 'word' && CREATE_PREFIXES.has(lexer.word)) kind = lexer.next();
    if (kind !== 'word' || !SCHEMA_OBJECTS.has(lexer.word)) return false;
    kind = lexer.next();
    while (kind === 'word' && IF_NOT_EXISTS.has(lexer.word)) kind = lexer.next();
    if (kind !== 'word' && kind !== 'quoted') return false;
    const schema = kind === 'quoted' ? unquoted(lexer.text) : lexer.text;
    return schema.toLowerCase() === 'temp' && lexer.next() === 'other' && lexer.text === '.';
  });
}

/**
 * Whether `test` holds for a statement of `sql`, called with the lexer on each statement's first keyword (after
 * EXPLAIN [QUERY PLAN]: the statement after it is still prepared, and its authorizer runs).
 */
function someStatement(sql: string, test: (lexer: SqlLexer) => boolean): boolean {
  let expectKeyword = true;
  let afterExplain = false;
  const lexer = new SqlLexer(sql);
  for (let kind: SqlTokenKind | undefined = lexer.next(); kind !== undefined; kind = lexer.next()) {
    if (kind === 'semicolon') {
      expectKeyword = true;
      afterExplain = false;
      continue;
    }
    if (kind !== 'word') {
      expectKeyword = false;
      continue;
    }
    if (!expectKeyword) continue;
    const word = lexer.word;
    if (word === 'explain') {
      afterExplain = true;
      continue;
    }
    if (afterExplain && (word === 'query' || word === 'plan')) continue;
    expectKeyword = false;
    if (test(lexer)) return true;
    // The test may have read on, up to the `;` that ends the statement: the next one starts after it.
    if (lexer.text === ';') expectKeyword = true;
  }
  return false;
}

/** A quoted name without its quotes (a doubled quote inside is one). */
function unquoted(text: string): string {
  const close = text[0] === '[' ? ']' : text[0]!;
  const inner = text.slice(1, text.endsWith(close) && text.length > 1 ? -1 : undefined);
  return close === ']' ? inner : inner.replaceAll(close + close, close);
}
