// SQL over the official libSQL client (its HTTP entry point, so no native module is loaded): an interactive
// prompt in the manner of `sqlite3` and `turso db shell`, and one-shot execution.
import { createInterface } from 'node:readline/promises';
import { createClient, type Client, type InValue, type ResultSet } from '@libsql/client/web';
import { CliError } from '../errors.ts';
import { paint, printTable, println } from '../output.ts';
import { takeStatements } from './sql-statements.ts';

/** A statement's result in JSON: values as the client returns them, bigints as strings, blobs as base64. */
export interface StatementResult {
  columns: string[];
  rows: unknown[][];
  rows_affected: number;
  last_insert_rowid: string | null;
}

interface Connection {
  url: string;
  token: string;
}

function connect({ url, token }: Connection): Client {
  return createClient({ url, authToken: token });
}

/**
 * Runs the statements (several in one transaction: a read transaction for a read-only token, whose engine
 * refuses the `BEGIN IMMEDIATE` of a write one) and returns their results.
 */
export async function executeStatements(connection: Connection, statements: readonly string[], readOnly = false): Promise<StatementResult[]> {
  const client = connect(connection);
  try {
    const results = statements.length === 1 ? [await client.execute(statements[0] as string)] : await client.batch([...statements], readOnly ? 'read' : 'write');
    return results.map(toJson);
  } catch (err) {
    throw sqlError(err);
  } finally {
    client.close();
  }
}

const HELP = `.tables            list the tables
.schema [TABLE]    show CREATE statements
.help              this text
.quit              leave (or Ctrl-D)
Statements end with a semicolon and may span lines; several on a line run one after another.`;

/** Reads statements from stdin (a prompt on a terminal, else piped SQL) until end of input or `.quit`. */
export async function runShell(options: Connection & { name: string }): Promise<void> {
  const client = connect(options);
  const interactive = process.stdin.isTTY === true;
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, historySize: 500 });
  const prompt = (pending: boolean): void => {
    if (!interactive) return;
    lines.setPrompt(pending ? '   ...> ' : `${options.name}> `);
    lines.prompt();
  };
  if (interactive) println(paint('dim', `Connected to ${options.name} (${options.url}). Statements end with ;  .help for help, .quit to leave.`));
  let buffer = '';
  let failed = false;
  // Ctrl-C drops the statement being typed (never runs it), as sqlite3 does; Ctrl-D or .quit leaves.
  lines.on('SIGINT', () => {
    buffer = '';
    process.stdout.write('^C\n');
    prompt(false);
  });
  prompt(false);
  try {
    for await (const line of lines) {
      const trimmed = line.trim();
      if (buffer === '' && trimmed.startsWith('.')) {
        const [command, arg] = trimmed.split(/\s+/);
        if (command === '.quit' || command === '.exit') break;
        else if (command === '.help') println(HELP);
        else if (command === '.tables') await show(client, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_litestream%' ORDER BY name");
        else if (command === '.schema')
          await show(client, "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'" + (arg ? ' AND tbl_name = ?' : '') + ' ORDER BY name', arg ? [arg] : []);
        else println(`unknown command ${command}: .help lists them`);
        prompt(false);
        continue;
      }
      const { statements, rest } = takeStatements(`${buffer}${line}\n`);
      buffer = rest.trim() === '' ? '' : rest;
      for (const sql of statements) {
        try {
          await show(client, sql);
        } catch (err) {
          failed = true;
          process.stderr.write(`${paint('red', 'error:', process.stderr)} ${sqlError(err).message}\n`);
        }
      }
      prompt(buffer !== '');
    }
    // Piped SQL may end without a semicolon; typed SQL without one was never finished, so it is not run. A rest
    // of comments alone is no statement; an unfinished one (a trigger without its END) goes as it is, for cw-db's error.
    if (!interactive && buffer !== '') {
      const last = takeStatements(`${buffer}\n;`);
      if (last.statements.length > 0 || last.rest.trim() !== '') await show(client, last.statements[0] ?? buffer);
    }
  } finally {
    lines.close();
    client.close();
  }
  // Piped SQL with an error exits non-zero, as `sqlite3` does, so scripts notice.
  if (failed && !interactive) throw new CliError('some statements failed (see above)');
}

async function show(client: Client, sql: string, args: InValue[] = []): Promise<void> {
  const result = toJson(await client.execute({ sql, args }));
  if (result.columns.length > 0)
    printTable(
      result.columns,
      result.rows.map((row) => row.map(cellText)),
      '(no rows)',
    );
  else println(paint('dim', `OK: ${result.rows_affected} row${result.rows_affected === 1 ? '' : 's'} changed`));
}

function toJson(result: ResultSet): StatementResult {
  return {
    columns: [...result.columns],
    rows: result.rows.map((row) => result.columns.map((_, i) => jsonValue(row[i]))),
    rows_affected: result.rowsAffected,
    last_insert_rowid: result.lastInsertRowid === undefined ? null : String(result.lastInsertRowid),
  };
}

function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof ArrayBuffer) return { base64: Buffer.from(value).toString('base64') };
  return value ?? null;
}

export function cellText(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'object' || typeof value === 'function') return '<blob>';
  return String(value as string | number | bigint | boolean);
}

/** The libSQL client's error as one line: its message, which names the SQLite error. */
function sqlError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(message.replace(/\s+/g, ' ').trim());
}
