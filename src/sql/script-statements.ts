// A script (a Hrana `sequence` in cw-db, a migration file in the platform) cut into its statements where SQLite's own
// shell cuts them: sqlite3_complete's state machine (complete.c) over the lexer's tokens. At each `;`, except inside a CREATE TRIGGER, which ends only at a `;`
// right after `; END` (a `CASE … END` never follows a `;`, so it is not taken for the trigger's end).
import { SqlLexer, type SqlTokenKind } from './sql-tokens.ts';

/** complete.c's tokens: what a `;` or a word means to its state machine (any other token is OTHER). */
type Token = 'semi' | 'other' | 'explain' | 'create' | 'temp' | 'trigger' | 'end';

/** complete.c's states; its INVALID is START here, since blanks and comments are no tokens of the lexer's. */
type State = 'start' | 'normal' | 'explain' | 'create' | 'trigger' | 'semi' | 'end';

type Transitions = { otherwise: State } & Partial<Record<Token, State>>;

/** complete.c's `trans`: the next state by state and token, where a token not named leads to `otherwise`. */
const TRANSITIONS: Record<State, Transitions> = {
  start: { otherwise: 'normal', semi: 'start', explain: 'explain', create: 'create' },
  normal: { otherwise: 'normal', semi: 'start' },
  explain: { otherwise: 'normal', semi: 'start', other: 'explain', create: 'create' },
  create: { otherwise: 'normal', semi: 'start', temp: 'create', trigger: 'trigger' },
  trigger: { otherwise: 'trigger', semi: 'semi' },
  semi: { otherwise: 'trigger', semi: 'semi', end: 'end' },
  end: { otherwise: 'trigger', semi: 'start' },
};

const KEYWORDS: ReadonlyMap<string, Token> = new Map([
  ['explain', 'explain'],
  ['create', 'create'],
  ['temp', 'temp'],
  ['temporary', 'temp'],
  ['trigger', 'trigger'],
  ['end', 'end'],
]);

/**
 * The statements of `sql`, each as written from its first token to its `;` (or the text's end); blanks, comments
 * between statements and empty statements (a lone `;`) are left out, as SQLite skips them. A NUL ends the script, as
 * it ends `sqlite3_exec`'s.
 */
export function scriptStatements(script: string): string[] {
  const nul = script.indexOf('\0');
  const sql = nul === -1 ? script : script.slice(0, nul);
  const statements: string[] = [];
  const lexer = new SqlLexer(sql);
  let state: State = 'start';
  let start = 0;
  for (let kind = lexer.next(); kind !== undefined; kind = lexer.next()) {
    if (state === 'start' && kind !== 'semicolon') start = lexer.start;
    const transitions: Transitions = TRANSITIONS[state];
    const next: State = transitions[tokenOf(kind, lexer)] ?? transitions.otherwise;
    if (next === 'start' && state !== 'start') statements.push(sql.slice(start, lexer.end));
    state = next;
  }
  if (state !== 'start') statements.push(sql.slice(start, lexer.end));
  return statements;
}

function tokenOf(kind: SqlTokenKind, lexer: SqlLexer): Token {
  if (kind === 'semicolon') return 'semi';
  return kind === 'word' ? (KEYWORDS.get(lexer.word) ?? 'other') : 'other';
}
