// A lexer just deep enough for what looks at SQL before SQLite does (statement-guards.ts, statement-tail.ts, the
// parameter numbering of sql-parameters.ts): it skips what SQLite skips (whitespace, comments) and never takes a
// quoted string or identifier for a keyword or a `;`. A cursor rather than token objects: the parameter numbering
// runs on every execute, and allocating a token per character made it five times slower.

/**
 * `word`: a keyword or bare name; `parameter`: `?`, `?NNN`, `:name`, `@name`, `$name` or `#name` (with TCL's `(…)`); `quoted`: a string or
 * quoted name; `other`: any other character, one at a time.
 */
export type SqlTokenKind = 'word' | 'parameter' | 'semicolon' | 'quoted' | 'other';

export class SqlLexer {
  readonly #sql: string;
  #next = 0;
  /** Where the current token starts and ends in the text. */
  start = 0;
  end = 0;

  constructor(sql: string) {
    this.#sql = sql;
  }

  /** The current token as written. */
  get text(): string {
    return this.#sql.slice(this.start, this.end);
  }

  /** The current token lower-cased (for words). */
  get word(): string {
    return this.text.toLowerCase();
  }

  /** Moves to the next token and answers its kind, or `undefined` at the end of the text. */
  next(): SqlTokenKind | undefined {
    const sql = this.#sql;
    let i = this.#next;
    while (i < sql.length) {
      const c = sql[i]!;
      const code = sql.charCodeAt(i);
      // Whitespace as SQLite knows it (a subset of what \s matches, so nothing SQLite skips is taken for a word).
      if (isSpace(code, c)) {
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
      this.start = i;
      let kind: SqlTokenKind;
      let end = i + 1;
      if (c === ';') kind = 'semicolon';
      else if (c === "'" || c === '"' || c === '`' || c === '[') {
        kind = 'quoted';
        end = afterQuoted(sql, i);
      } else if (isWordStart(code)) {
        kind = 'word';
        while (end < sql.length && isWordPart(sql.charCodeAt(end))) end++;
      } else if (c === '?') {
        kind = 'parameter';
        while (end < sql.length && sql.charCodeAt(end) >= 48 && sql.charCodeAt(end) <= 57) end++;
      } else if (c === ':' || c === '@' || c === '$' || c === '#') {
        // A named parameter, or (with no name character) one illegal token over what tokenize.c reads of it.
        const named = afterNamedParameter(sql, end);
        kind = named.named ? 'parameter' : 'other';
        end = named.end;
      } else kind = 'other';
      this.end = end;
      this.#next = end;
      return kind;
    }
    this.#next = i;
    return undefined;
  }
}

/**
 * Where a named parameter whose sigil ends at `start` ends, as tokenize.c reads one: name characters (every non-ASCII
 * one among them) and `::`, then perhaps a TCL-style `(…)` suffix running to `)` or ASCII whitespace, so `$a(x;y)` is
 * one token, not one cut at `;`. `named`: whether it had a name character (without one SQLite refuses the token).
 */
function afterNamedParameter(sql: string, start: number): { end: number; named: boolean } {
  let i = start;
  let named = false;
  for (;;) {
    if (isNameChar(sql[i])) {
      named = true;
      i++;
    } else if (sql[i] === ':' && sql[i + 1] === ':') i += 2;
    else if (sql[i] === '(' && named) {
      i++;
      while (i < sql.length && sql[i] !== ')' && !isAsciiSpace(sql.charCodeAt(i)) && sql[i] !== '\0') i++;
      return { end: sql[i] === ')' ? i + 1 : i, named };
    } else return { end: i, named };
  }
}

/** sqlite3Isspace: the ASCII blanks only. */
function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** The index after the quoted string or identifier starting at `start` (a doubled quote is part of it). */
function afterQuoted(sql: string, start: number): number {
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

// Character classes by code unit: a regular expression per character made the lexer several times slower.
function isSpace(code: number, c: string): boolean {
  return code < 128 ? code === 32 || (code >= 9 && code <= 13) : /\s/.test(c);
}

/** A word starts with a letter, `_` or any non-ASCII character… */
function isWordStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 128;
}

/** …and goes on with those, digits and `$`. */
function isWordPart(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57) || code === 36;
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && (/[A-Za-z0-9_$]/.test(c) || c.charCodeAt(0) > 127);
}
