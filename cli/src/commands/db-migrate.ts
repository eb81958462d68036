// `cw db migrate`: applies a migrations folder (`0001_init.sql`, …) to a database, as a deploy whose
// cloudwright.json names the folder does, through the API's migrations route with a query token of its own. The
// database records what it applied (`_cw_migrations`), so a later deploy or run applies only what is new.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { act, examples, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { ApiError, CliError, UsageError } from '../errors.ts';
import { note, printJson, println, success } from '../output.ts';
import { sqlConnection } from './query-token.ts';

interface MigrateOptions {
  dir: string;
  dryRun?: boolean;
}

export function registerDbMigrate(db: Command): void {
  examples(
    act(
      withJson(
        db
          .command('migrate')
          .argument('<name>', 'name or database id')
          .option('--dir <folder>', 'the migrations folder (files like 0001_init.sql, applied in the order of their names)', 'migrations')
          .option('--dry-run', 'only list the migrations not applied yet')
          .description('Apply the migrations of a folder that the database has not applied yet, each in a transaction'),
      ),
      migrate,
    ),
    ['cw db migrate notes --dry-run', 'cw db migrate notes --dir db/migrations'],
  );
}

/** The folder's `.sql` files with their text (the API checks their names and order). */
function readFolder(dir: string): { name: string; sql: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.sql') && statSync(join(dir, name)).isFile());
  } catch {
    throw new UsageError(`cannot read the migrations folder ${dir}`);
  }
  if (names.length === 0) throw new UsageError(`${dir} holds no .sql files`);
  return names.sort().map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

async function migrate(ctx: Context, database: string, options: MigrateOptions): Promise<void> {
  const files = readFolder(options.dir);
  const projectId = await ctx.project();
  const send = async (fresh: boolean) => {
    const { token } = await sqlConnection(ctx, database, false, fresh);
    return ctx.ok(
      ctx.api.POST('/v1/projects/{projectId}/databases/{database}/migrations', {
        params: { path: { projectId, database } },
        body: { files, ...(options.dryRun ? { dry_run: true } : {}) },
        headers: { authorization: `Bearer ${token}` },
      }),
    );
  };
  let answer;
  try {
    answer = await send(false);
  } catch (err) {
    // The stored query token may have been rotated away since: once more with a new one.
    if (!(err instanceof ApiError) || err.status !== 401) throw err;
    answer = await send(true);
  }
  if (ctx.json) printJson(answer);
  else if (options.dryRun) {
    if (answer.pending.length === 0) success(`${database} has applied every migration of ${options.dir}`);
    else {
      note(`${answer.pending.length} migration${answer.pending.length === 1 ? '' : 's'} to apply to ${database}:`);
      for (const name of answer.pending) println(name);
    }
  } else {
    for (const name of answer.applied) success(`applied ${name}`);
    if (answer.pending.length === 0) success(`${database} had applied every migration of ${options.dir} already`);
  }
  const failed = answer.failed;
  if (failed) {
    throw new CliError(`${failed.file} failed${failed.statement ? ` at \`${failed.statement}\`` : ''}: ${failed.message} (rolled back; the migrations after it were not run)`);
  }
}
