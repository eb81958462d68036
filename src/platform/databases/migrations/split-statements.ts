/**
 * Splits a migration file into its statements, as sqlite3's shell does: at semicolons outside strings, quoted
 * names and comments, and, in a `CREATE TRIGGER`, only once its `BEGIN … END` closes (CASE … END nests inside).
 * Statements that are only comments or blanks are dropped. Each is run on its own so a failure names it. Pure.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let depth = 0;
  let trigger: boolean | undefined;
  let words = 0;
  let i = 0;
  const push = (end: number): void => {
    const text = sql.slice(start, end).trim();
    if (hasCode(text)) out.push(text);
    start = end;
    depth = 0;
    trigger = undefined;
    words = 0;
  };
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      i = sql.indexOf(close, i + 1);
      // Doubled quotes ('it''s') read as two strings back to back: the same split.
      i = i < 0 ? sql.length : i + 1;
    } else if (c === '-' && next === '-') {
      i = sql.indexOf('\n', i);
      if (i < 0) i = sql.length;
    } else if (c === '/' && next === '*') {
      i = sql.indexOf('*/', i + 2);
      i = i < 0 ? sql.length : i + 2;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j] as string)) j++;
      const word = sql.slice(i, j).toUpperCase();
      words++;
      // CREATE [TEMP|TEMPORARY] TRIGGER: the second or third word.
      if (trigger === undefined && words <= 3 && word === 'TRIGGER') trigger = true;
      else if (words >= 3 && trigger === undefined) trigger = false;
      if (trigger && (word === 'BEGIN' || word === 'CASE')) depth++;
      else if (trigger && word === 'END' && depth > 0) depth--;
      i = j;
    } else if (c === ';' && depth === 0) {
      push(i + 1);
      i++;
    } else i++;
  }
  push(sql.length);
  return out;
}

/** Whether a statement holds anything besides comments, blanks and its semicolon. */
function hasCode(text: string): boolean {
  const stripped = text
    .replace(/--[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/;/g, '');
  return stripped.trim().length > 0;
}
