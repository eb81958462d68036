// The shell's statements, split as SQLite's own shell splits them (sqlite3_complete): at each `;` outside
// strings, quoted names and comments, and within CREATE TRIGGER only at a `;` right after `; END` (a CASE's END
// never follows a `;`, so `CASE … END;` inside a trigger does not end it). cw-db runs one
// statement per execute (a second one is refused), so `SELECT 1; SELECT 2;` on one line is two executes.

/** The complete statements at the start of `text` (each with its `;`), and what is left after them. */
export function takeStatements(text: string): { statements: string[]; rest: string } {
  const statements: string[] = [];
  let start = 0;
  let words: string[] = [];
  let lastWord = '';
  /** The token before `lastWord` was a `;` (inside a trigger: `; END` may end it). */
  let wordAfterSemi = false;
  let afterSemi = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`' || c === '[') {
      i = afterQuoted(text, i);
      words.push('');
      lastWord = '';
      afterSemi = false;
    } else if (c === ';') {
      i++;
      if (isTrigger(words) && !(lastWord === 'end' && wordAfterSemi)) {
        afterSemi = true;
        lastWord = '';
        continue;
      }
      const statement = text.slice(start, i).trim();
      // A lone `;` is no statement (SQLite skips it too).
      if (words.length > 0) statements.push(statement);
      start = i;
      words = [];
      lastWord = '';
      afterSemi = false;
    } else if (/[A-Za-z_]/.test(c)) {
      let end = i + 1;
      while (end < text.length && /[A-Za-z0-9_$]/.test(text[end]!)) end++;
      lastWord = text.slice(i, end).toLowerCase();
      wordAfterSemi = afterSemi;
      afterSemi = false;
      if (words.length < 3) words.push(lastWord);
      i = end;
    } else {
      if (!/\s/.test(c)) {
        if (words.length < 3) words.push(c);
        lastWord = '';
        afterSemi = false;
      }
      i++;
    }
  }
  return { statements, rest: text.slice(start) };
}

function isTrigger(words: readonly string[]): boolean {
  if (words[0] !== 'create') return false;
  return words[1] === 'trigger' || ((words[1] === 'temp' || words[1] === 'temporary') && words[2] === 'trigger');
}

/** The index after the quoted string or name starting at `start` (a doubled quote is part of it). */
function afterQuoted(text: string, start: number): number {
  const close = text[start] === '[' ? ']' : text[start]!;
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === close) {
      if (close !== ']' && text[i + 1] === close) i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}
