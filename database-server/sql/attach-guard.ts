// The sandbox's authorizer denies ATTACH and DETACH, but the engine's addon matches that rule only when the file
// name is a string literal: SQLite passes no name for any other expression (`ATTACH ? AS x`, `ATTACH 'a' || 'b'`),
// the addon then reports an unknown action, and unknown actions fall to the default, allow. So the statements are
// also refused here, before SQLite sees them: ATTACH and DETACH exist only as statements of their own (no trigger
// or view runs one, and the one function that runs SQL text, `sha3_query`, is denied: sandbox.ts), so looking at
// the first keyword of each statement is enough.

import { SqlLexer } from './sql-tokens.ts';

/** Statement-initial keywords that reach another database file. */
const FILE_STATEMENTS = new Set(['attach', 'detach']);

/** Whether any statement of `sql` (one or several, `;`-separated) is an ATTACH or DETACH, EXPLAIN'd or not. */
export function attachesFiles(sql: string): boolean {
  let expectKeyword = true;
  let afterExplain = false;
  const lexer = new SqlLexer(sql);
  for (let kind = lexer.next(); kind !== undefined; kind = lexer.next()) {
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
    if (FILE_STATEMENTS.has(word)) return true;
    // EXPLAIN [QUERY PLAN] <statement>: the statement after it is still prepared (its authorizer runs).
    if (word === 'explain') afterExplain = true;
    else if (afterExplain && (word === 'query' || word === 'plan')) continue;
    else expectKeyword = false;
  }
  return false;
}
