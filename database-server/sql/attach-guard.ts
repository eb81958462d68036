// The sandbox's authorizer denies ATTACH and DETACH, but the engine's addon matches that rule only when the file
// name is a string literal: SQLite passes no name for any other expression (`ATTACH ? AS x`, `ATTACH 'a' || 'b'`),
// the addon then reports an unknown action, and unknown actions fall to the default, allow. So the statements are
// also refused here, before SQLite sees them: ATTACH and DETACH exist only as statements of their own (no trigger
// or view runs one, and the one function that runs SQL text, `sha3_query`, is denied: sandbox.ts), so looking at
// the first keyword of each statement is enough.

/** Statement-initial keywords that reach another database file. */
const FILE_STATEMENTS = new Set(['attach', 'detach']);

/** Whether any statement of `sql` (one or several, `;`-separated) is an ATTACH or DETACH, EXPLAIN'd or not. */
export function attachesFiles(sql: string): boolean {
  let expectKeyword = true;
  let afterExplain = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    // Whitespace as SQLite knows it (a subset of what \s matches, so nothing SQLite skips is taken for a word).
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      continue;
    }
    if (c === ';') {
      expectKeyword = true;
      afterExplain = false;
      i++;
      continue;
    }
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      i = skipQuoted(sql, i);
      expectKeyword = false;
      continue;
    }
    if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let end = i + 1;
      while (end < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[end]!)) end++;
      const word = sql.slice(i, end).toLowerCase();
      i = end;
      if (!expectKeyword) continue;
      if (FILE_STATEMENTS.has(word)) return true;
      // EXPLAIN [QUERY PLAN] <statement>: the statement after it is still prepared (its authorizer runs).
      if (word === 'explain') afterExplain = true;
      else if (afterExplain && (word === 'query' || word === 'plan')) continue;
      else expectKeyword = false;
      continue;
    }
    expectKeyword = false;
    i++;
  }
  return false;
}

/** The index after the quoted string or identifier starting at `start` (a doubled quote is part of it). */
function skipQuoted(sql: string, start: number): number {
  const close = sql[start] === '[' ? ']' : sql[start]!;
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === close) {
      if (close !== ']' && sql[i + 1] === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return i;
}
