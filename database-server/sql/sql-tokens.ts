// A lexer just deep enough for what looks at SQL before SQLite does (attach-guard.ts, statement-tail.ts, the
// parameter numbering of sql-parameters.ts): it skips what SQLite skips (whitespace, comments) and never takes a quoted string or
// identifier for a keyword or a `;`.

export type SqlToken =
  | { readonly kind: 'word'; readonly word: string }
  /** `?`, `?NNN`, `:name`, `@name` or `$name`, as written. */
  | { readonly kind: 'parameter'; readonly text: string }
  | { readonly kind: 'semicolon' | 'quoted' | 'other' };

/** The tokens of `sql`, words lower-cased; anything else not listed in SqlToken is one `other` per character. */
export function* sqlTokens(sql: string): Generator<SqlToken> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    // Whitespace as SQLite knows it (a subset of what \s matches, so nothing SQLite skips is taken for a word).
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === ';') {
      i++;
      yield { kind: 'semicolon' };
    } else if (c === "'" || c === '"' || c === '`' || c === '[') {
      i = skipQuoted(sql, i);
      yield { kind: 'quoted' };
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let end = i + 1;
      while (end < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[end]!)) end++;
      yield { kind: 'word', word: sql.slice(i, end).toLowerCase() };
      i = end;
    } else if (c === '?') {
      const end = i + 1 + /^\d*/.exec(sql.slice(i + 1))![0].length;
      yield { kind: 'parameter', text: sql.slice(i, end) };
      i = end;
    } else if ((c === ':' || c === '@' || c === '$') && isNameChar(sql[i + 1])) {
      let end = i + 1;
      while (isNameChar(sql[end])) end++;
      yield { kind: 'parameter', text: sql.slice(i, end) };
      i = end;
    } else {
      i++;
      yield { kind: 'other' };
    }
  }
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

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && (/[A-Za-z0-9_$]/.test(c) || c.charCodeAt(0) > 127);
}
