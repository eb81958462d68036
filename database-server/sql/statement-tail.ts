// SQLite prepares the first statement of a text and leaves the rest unread, so an `execute` of
// `INSERT …; DELETE …` would run the INSERT and silently drop the DELETE. sqld refuses such a text
// (`SQL_MANY_STATEMENTS`), and so does cw-db: a statement a client sent is run or refused, never lost.
import { SqlLexer } from '../../src/sql/sql-tokens.ts';

/**
 * Whether another statement follows the first one of `sql` (anything but whitespace, comments and empty `;`).
 * A `CREATE TRIGGER` is never judged: its body holds `;`s, and telling its `END;` from a `CASE … END;` inside the
 * body needs SQLite's parser, so a text starting with one is left to SQLite as before.
 */
export function hasStatementAfterFirst(sql: string): boolean {
  const leading: string[] = [];
  let ended = false;
  const lexer = new SqlLexer(sql);
  for (let kind = lexer.next(); kind !== undefined; kind = lexer.next()) {
    if (kind === 'semicolon') {
      // Empty statements before the first one are skipped by SQLite too.
      if (leading.length > 0) ended = true;
      continue;
    }
    if (ended) return true;
    if (leading.length < 3) {
      leading.push(kind === 'word' ? lexer.word : '');
      if (isTrigger(leading)) return false;
    }
  }
  return false;
}

/** CREATE [TEMP | TEMPORARY] TRIGGER. */
function isTrigger(words: readonly string[]): boolean {
  if (words[0] !== 'create') return false;
  return words[1] === 'trigger' || ((words[1] === 'temp' || words[1] === 'temporary') && words[2] === 'trigger');
}
