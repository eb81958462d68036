// SQL databases: create (the token is printed once), inspect usage, rotate, restore to a point in time (into a new
// database, or in place with an undo point), delete, and run SQL with the official libSQL client (`cw db shell`,
// `cw db execute`).
import type { Command } from 'commander';
import { act, choiceOption, confirmOrExit, durationOption, examples, intOption, sizeOption, withJson, withYes, withLimit } from '../command-kit.ts';
import { collectPages } from '../pages.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { ago, formatBytes, note, paint, printFields, printJson, printTable, println, success } from '../output.ts';
import { forgetSqlConnections, isRefusedToken, sqlConnection } from './query-token.ts';
import { cellText, executeStatements, runShell } from './sql-shell.ts';
import { registerDbMigrate } from './db-migrate.ts';

const DURABILITY = ['async', 'sync'] as const;

export function registerDatabases(program: Command): void {
  const db = program.command('db').alias('databases').description('Create, inspect and query SQL databases');
  examples(
    act(
      withJson(
        db
          .command('create')
          .argument('<name>', 'lowercase letters, digits and dashes')
          .option('--durability <mode>', 'async (default: commits reach object storage within a second) or sync', choiceOption(DURABILITY))
          .option('--max-size <size>', 'size quota, e.g. 2GiB (default: the engine’s, 1 GiB)', sizeOption)
          .option('--statement-timeout <duration>', 'statement time limit, e.g. 10s (default: the engine’s, 5s)', durationOption)
          .option('--rows-read-per-day <n>', 'rows statements may return per UTC day (default: the engine’s, 100000000)', ROWS_PER_DAY)
          .option('--rows-written-per-day <n>', 'rows statements may change per UTC day (default: the engine’s, 10000000)', ROWS_PER_DAY)
          .description('Create a database and print its URL and token (the token is shown only now)'),
      ),
      create,
    ),
    ['cw db create notes', 'cw db create ledger --durability sync --json', 'cw db create archive --max-size 5GiB --rows-written-per-day 100000'],
  );
  examples(
    act(
      withJson(
        db
          .command('limits')
          .alias('update')
          .argument('<name>', 'name or database id')
          .option('--max-size <size>', 'size quota, e.g. 2GiB', sizeOption)
          .option('--statement-timeout <duration>', 'statement time limit, e.g. 10s', durationOption)
          .option('--rows-read-per-day <n>', 'rows statements may return per UTC day; past it every statement is refused until midnight UTC', ROWS_PER_DAY)
          .option('--rows-written-per-day <n>', 'rows statements may change per UTC day; past it writes are refused until midnight UTC', ROWS_PER_DAY)
          .description('Show a database’s limits and today’s counts, or set them (what is not given goes back to the default)'),
      ),
      limits,
    ),
    ['cw db limits notes', 'cw db update notes --max-size 5GiB --statement-timeout 10s', 'cw db update notes --rows-written-per-day 100000 --rows-read-per-day 5000000'],
  );
  examples(act(withLimit(withJson(db.command('ls').alias('list').description("List the project's databases"))), list), ['cw db ls']);
  examples(act(withJson(db.command('get').alias('show').argument('<name>', 'name or database id').description('Show a database with its usage and restore window')), get), ['cw db get notes']);
  examples(
    act(
      withJson(
        withYes(
          db
            .command('rotate')
            .argument('<name>', 'name or database id')
            .option('--read-only', 'the new token can read but not write')
            .description('Issue a new token; every earlier token of the database stops working'),
        ),
      ),
      rotate,
    ),
    ['cw db rotate notes --yes'],
  );
  examples(
    act(
      withJson(
        withYes(
          db
            .command('restore')
            .argument('<database>', 'the database to restore (name or id)')
            .option('--at <time>', 'the point in time, ISO 8601 (see the restore window in `cw db get`)')
            .option('--to <name|time>', 'name of the new database; with --in-place, the point in time')
            .option('--in-place', 'restore the database itself (same id, URL and tokens); prints the undo point')
            .option('--durability <mode>', 'async or sync (of a new database)', choiceOption(DURABILITY))
            .description('Restore a database as it was at a point in time: into a new database, or in place (undoable)'),
        ),
      ),
      restore,
    ),
    ['cw db restore notes --at 2026-11-26T10:00:00Z --to notes-before-migration', 'cw db restore notes --in-place --to 2026-11-26T10:00:00Z --yes'],
  );
  examples(act(withYes(db.command('rm').alias('delete').argument('<name>', 'name or database id').description('Delete a database and every copy of it')), remove), ['cw db rm notes --yes']);
  examples(
    act(
      db
        .command('shell')
        .argument('<name>', 'name or database id')
        .option('--read-only', 'refuse writes')
        .description('An interactive SQL prompt (statements end with ;  .help lists the dot commands)'),
      shell,
    ),
    ['cw db shell notes', 'echo "select count(*) from notes;" | cw db shell notes'],
  );
  registerDbMigrate(db);
  examples(
    act(
      withJson(
        db
          .command('execute')
          .argument('<name>', 'name or database id')
          .argument('<sql...>', 'statements; several run in one transaction')
          .option('--read-only', 'refuse writes')
          .description('Run SQL and print the results'),
      ),
      execute,
    ),
    ['cw db execute notes "select * from notes"', 'cw db execute notes "insert into notes(body) values (\'hi\')" "select count(*) from notes" --json'],
  );
}

const ROWS_PER_DAY = intOption(1, 1_000_000_000_000);

interface LimitOptions {
  maxSize?: number;
  statementTimeout?: number;
  rowsReadPerDay?: number;
  rowsWrittenPerDay?: number;
}

interface LimitsBody {
  max_size_bytes?: number;
  statement_timeout_ms?: number;
  rows_read_per_day?: number;
  rows_written_per_day?: number;
}

/** The API's `limits` for what was given; undefined when nothing was. */
function limitsBody(options: LimitOptions): LimitsBody | undefined {
  const body: LimitsBody = {
    ...(options.maxSize === undefined ? {} : { max_size_bytes: options.maxSize }),
    ...(options.statementTimeout === undefined ? {} : { statement_timeout_ms: options.statementTimeout }),
    ...(options.rowsReadPerDay === undefined ? {} : { rows_read_per_day: options.rowsReadPerDay }),
    ...(options.rowsWrittenPerDay === undefined ? {} : { rows_written_per_day: options.rowsWrittenPerDay }),
  };
  return Object.keys(body).length === 0 ? undefined : body;
}

type Detail = { limits?: { rows_read_per_day?: number; rows_written_per_day?: number }; usage: { today?: { day: string; rows_read: number; rows_written: number } } };

/** "1,204 of 10,000 today (2026-11-29 UTC)": a daily count against its quota. */
function dailyText(d: Detail, kind: 'read' | 'written'): string | undefined {
  const quota = kind === 'read' ? d.limits?.rows_read_per_day : d.limits?.rows_written_per_day;
  const today = d.usage.today;
  if (quota === undefined) return undefined;
  const count = (n: number) => n.toLocaleString('en-US');
  const done = today ? (kind === 'read' ? today.rows_read : today.rows_written) : 0;
  return `${count(done)} of ${count(quota)} today${today ? ` (${today.day} UTC)` : ''}, resets at midnight UTC`;
}

async function create(ctx: Context, name: string, options: { durability?: 'async' | 'sync' } & LimitOptions): Promise<void> {
  const projectId = await ctx.project();
  const limits = limitsBody(options);
  const body = { name, ...(options.durability ? { durability: options.durability } : {}), ...(limits ? { limits } : {}) };
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/databases', { params: { path: { projectId } }, body }));
  if (ctx.json) return printJson(answer);
  if (!answer.created) {
    note(`${name} already exists (${answer.status}); its token is not shown again: \`cw db rotate ${name}\` issues a new one`);
    return;
  }
  success(`Created database ${name} (${answer.status})`);
  printCredentials(answer.database_url, answer.database_token);
}

function printCredentials(url: string | undefined, token: string | undefined): void {
  printFields([
    ['URL', url],
    ['Token', token],
  ]);
  note(`${paint('yellow', '!', process.stderr)} The token is shown only now: store it before you go on (an app gets its own URL and token from a binding: cw apps bind-db APP DATABASE --full).`);
}

async function list(ctx: Context, options: { limit?: number }): Promise<void> {
  const projectId = await ctx.project();
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/databases', { params: { path: { projectId }, query } }));
    return { items: page.databases, next: page.next };
  }, options.limit);
  const answer = { databases: items, next };
  if (ctx.json) return printJson(answer);
  printTable(
    ['NAME', 'ID', 'STATUS', 'URL', 'CREATED'],
    answer.databases.map((d) => [d.name, d.database_id, d.status, d.database_url, ago(d.created_at)]),
    'No databases yet: create one with `cw db create NAME`.',
  );
}

async function get(ctx: Context, database: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/databases/{database}', { params: { path: { projectId, database } } }));
  if (ctx.json) return printJson(answer);
  const d = answer.database;
  printFields([
    ['Name', d.name],
    ['ID', d.database_id],
    ['Status', d.status_message ? `${d.status}: ${d.status_message}` : d.status],
    ['URL', d.database_url],
    ['WebSocket URL', d.database_ws_url],
    ['Durability', d.durability],
    ['Size', d.usage.size_quota_bytes === undefined ? formatBytes(d.usage.size_bytes) : `${formatBytes(d.usage.size_bytes)} of ${formatBytes(d.usage.size_quota_bytes)} (quota)`],
    ['Statement limit', d.limits ? `${d.limits.statement_timeout_ms / 1000} s` : undefined],
    ['Limit reached', d.limit_reached ? paint('red', d.limit_reached.message) : 'no'],
    ['Rows read/day', dailyText(d, 'read')],
    ['Rows written/day', dailyText(d, 'written')],
    ['Rows read', d.usage.rows_read],
    ['Rows written', d.usage.rows_written],
    ['Last write', d.usage.last_write_at ? `${d.usage.last_write_at} (${ago(d.usage.last_write_at)})` : 'never'],
    ['Restore window', d.restore_window ? `${d.restore_window.earliest} … ${d.restore_window.latest}` : 'none yet'],
    ['Restored from', d.restored_from ? `${d.restored_from.database} at ${d.restored_from.timestamp}` : undefined],
    ['Last restore', d.restore_pending ? 'in progress' : d.last_restore ? lastRestoreText(d.last_restore) : undefined],
    ['Created', d.created_at],
  ]);
}

function lastRestoreText(r: { outcome: string; message: string; restored_to?: string; undo_point?: string }): string {
  return r.outcome === 'Restored' ? `in place to ${r.restored_to ?? '?'} (undo point ${r.undo_point ?? '?'})` : `${r.outcome}: ${r.message}`;
}

async function limits(ctx: Context, database: string, options: LimitOptions): Promise<void> {
  const projectId = await ctx.project();
  const params = { path: { projectId, database } };
  const asked = limitsBody(options);
  const request = asked
    ? ctx.api.PATCH('/v1/projects/{projectId}/databases/{database}', { params, body: { limits: asked } })
    : ctx.api.GET('/v1/projects/{projectId}/databases/{database}', { params });
  const answer = await ctx.ok(request);
  if (ctx.json) return printJson(answer);
  const d = answer.database;
  if (asked && (await request).response.status === 202) note('The engine has not applied the new limits yet; `cw db limits` shows them once it has.');
  else if (asked) success(`Set the limits of ${d.name}`);
  printFields([
    ['Size quota', d.limits ? formatBytes(d.limits.max_size_bytes) : 'not known yet'],
    ['Size', formatBytes(d.usage.size_bytes)],
    ['Statement limit', d.limits ? `${d.limits.statement_timeout_ms / 1000} s` : 'not known yet'],
    ['Rows read/day', dailyText(d, 'read') ?? 'not known yet'],
    ['Rows written/day', dailyText(d, 'written') ?? 'not known yet'],
    ['Limit reached', d.limit_reached ? paint('red', d.limit_reached.message) : 'no'],
  ]);
}

async function rotate(ctx: Context, database: string, options: { readOnly?: boolean }): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Rotate the token of ${database}? Every earlier token stops working`);
  const request = ctx.api.POST('/v1/projects/{projectId}/databases/{database}/tokens/rotate', { params: { path: { projectId, database } }, body: options.readOnly ? { read_only: true } : {} });
  const answer = await ctx.ok(request);
  await forgetSqlConnections(ctx, database);
  if (ctx.json) return printJson(answer);
  // 202: the engine has not applied the new token set yet; earlier tokens stop working within moments.
  const applied = (await request).response.status !== 202;
  success(`Rotated the token of ${database}${answer.read_only ? ' (read-only)' : ''}; ${applied ? 'earlier tokens are refused' : 'earlier tokens are refused as soon as the engine applies it'}`);
  const { database: d } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/databases/{database}', { params: { path: { projectId, database } } }));
  printCredentials(d.database_url, answer.database_token);
}

interface RestoreOptions {
  at?: string;
  to?: string;
  inPlace?: boolean;
  durability?: 'async' | 'sync';
}

async function restore(ctx: Context, source: string, options: RestoreOptions): Promise<void> {
  if (options.inPlace) return restoreInPlace(ctx, source, options);
  if (options.at === undefined || options.to === undefined) throw new UsageError('Give --at <time> and --to <new name> (or --in-place --to <time> to restore the database itself).');
  const at = isoTime('--at', options.at);
  const projectId = await ctx.project();
  const body = { name: options.to, restore_from: { database: source, timestamp: at }, ...(options.durability ? { durability: options.durability } : {}) };
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/databases', { params: { path: { projectId } }, body }));
  if (ctx.json) return printJson(answer);
  if (!answer.created) {
    note(`${options.to} already exists; nothing was restored. Choose another --to name.`);
    return;
  }
  success(`Restored ${source} as it was at ${at} into ${options.to} (${answer.status})`);
  printCredentials(answer.database_url, answer.database_token);
}

/** `--in-place`: the database itself goes back to `--to` (or `--at`); the state before becomes its undo point. */
async function restoreInPlace(ctx: Context, database: string, options: RestoreOptions): Promise<void> {
  if (options.durability) throw new UsageError('--durability is for a new database; an in-place restore keeps the database’s own.');
  if ((options.to === undefined) === (options.at === undefined)) throw new UsageError('Give the point in time once: --in-place --to <time>.');
  const flag = options.to === undefined ? '--at' : '--to';
  const timestamp = isoTime(flag, options.to ?? options.at ?? '');
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Restore ${database} in place to ${timestamp}? Its data goes back to that time (open transactions are rolled back); the restore can be undone`);
  const request = ctx.api.POST('/v1/projects/{projectId}/databases/{database}/restore', { params: { path: { projectId, database } }, body: { timestamp } });
  const answer = await ctx.ok(request);
  if (ctx.json) return printJson(answer);
  if (!answer.undo_point) {
    note(`${database} is still being restored; \`cw db get ${database}\` shows the outcome and its undo point.`);
    return;
  }
  success(`Restored ${database} in place to ${answer.restored_to ?? timestamp} (same URL and tokens)`);
  printFields([['Undo point', answer.undo_point]]);
  note(`To undo: cw db restore ${database} --in-place --to ${answer.undo_point}`);
}

function isoTime(flag: string, value: string): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new UsageError(`${flag} ${JSON.stringify(value)} is not a time: use ISO 8601, e.g. 2026-11-26T10:00:00Z`);
  return new Date(at).toISOString();
}

async function remove(ctx: Context, database: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Delete database ${database} and every copy of its data?`);
  const request = ctx.api.DELETE('/v1/projects/{projectId}/databases/{database}', { params: { path: { projectId, database } } });
  await ctx.ok(request);
  const { response } = await request;
  success(response.status === 202 ? `Deleting ${database}: it is refused already and its data goes shortly` : `Deleted ${database}`);
}

async function shell(ctx: Context, database: string, options: { readOnly?: boolean }): Promise<void> {
  const readOnly = options.readOnly === true;
  await runShell({ ...(await sqlConnection(ctx, database, readOnly)), name: database });
}

async function execute(ctx: Context, database: string, statements: string[], options: { readOnly?: boolean }): Promise<void> {
  const readOnly = options.readOnly === true;
  let results;
  try {
    results = await executeStatements(await sqlConnection(ctx, database, readOnly), statements, readOnly);
  } catch (err) {
    // The stored token may have been rotated away since: once more with a new one.
    if (!isRefusedToken(err)) throw err;
    results = await executeStatements(await sqlConnection(ctx, database, readOnly, true), statements, readOnly);
  }
  if (ctx.json) return printJson({ results });
  for (const r of results) {
    if (r.columns.length > 0)
      printTable(
        r.columns,
        r.rows.map((row) => row.map(cellText)),
        '(no rows)',
      );
    else println(`OK: ${r.rows_affected} row${r.rows_affected === 1 ? '' : 's'} changed`);
  }
}
