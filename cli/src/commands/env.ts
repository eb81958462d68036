// An app's environment: plain configuration values, and variables linked to a project database's token (its
// value is bound by the runtime and never shown).
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { act, appOf, confirmOrExit, examples, withJson, withYes } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { printJson, printTable, success } from '../output.ts';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function registerEnv(program: Command): void {
  const env = program.command('env').description("Read and change an app's environment variables (plain values, applied as a new rollout)");
  const app = (c: Command): Command => c.option('--app <app>', 'app id (default: CW_APP)');
  examples(act(withJson(app(env.command('ls').alias('list').description('List the variables'))), list), ['cw env ls --app web']);
  const setCommand = env
    .command('set')
    .argument('<pairs...>', 'KEY=VALUE pairs; with --database, variable names')
    .description("Create or replace variables: plain values, or links to a database's token (--database)")
    .option('--database <db>', "link the variables to this project database: each gets the database's token, never shown")
    .option('--full', 'with --database: a token that reads and writes')
    .option('--read-only', 'with --database: a token that only reads (the default)');
  examples(act(withJson(app(setCommand)), set), ['cw env set GREETING=hello --app web', 'cw env set A=1 B="two words" --app web', 'cw env set DATABASE_TOKEN --database orders --full --app web']);
  examples(act(withYes(app(env.command('rm').alias('remove').argument('<keys...>', 'variable names').description('Remove variables'))), remove), ['cw env rm GREETING --app web --yes']);
  examples(act(withYes(app(env.command('pull').argument('[file]', 'where to write', '.env').description('Write the variables to a .env file'))), pull), [
    'cw env pull --app web',
    'cw env pull .env.local --app web --yes',
  ]);
}

type Path = { projectId: string; appId: string };

async function target(ctx: Context, options: { app?: string }): Promise<Path> {
  return { projectId: await ctx.project(), appId: appOf(options, ctx.env) };
}

async function read(ctx: Context, path: Path) {
  return ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/environment', { params: { path } }));
}

async function list(ctx: Context, options: { app?: string }): Promise<void> {
  const path = await target(ctx, options);
  const answer = await read(ctx, path);
  if (ctx.json) return printJson(answer);
  printTable(
    ['KEY', 'VALUE'],
    Object.entries(answer.environment).map(([key, v]) => [key, shown(v)]),
    `${path.appId} has no environment variables: set one with \`cw env set KEY=VALUE --app ${path.appId}\`.`,
  );
}

/** A variable's value as listed: a linked one says where it comes from (a token is never shown). */
function shown(v: { value?: string; database?: string; access?: string; provides?: 'url' }): string {
  if (v.provides === 'url') return `(URL of database ${v.database ?? ''})`;
  return v.database ? `(linked: ${v.database}, ${v.access ?? 'read-only'} token)` : (v.value ?? '');
}

type SetOptions = { app?: string; database?: string; full?: boolean; readOnly?: boolean };

async function set(ctx: Context, pairs: string[], options: SetOptions): Promise<void> {
  if (options.database !== undefined) return link(ctx, pairs, options, options.database);
  if (options.full || options.readOnly) throw new UsageError('--full and --read-only go with --database');
  // Every pair is checked before anything is written, so a typo in the third leaves the first two unchanged too.
  const parsed = pairs.map((pair) => {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq) : '';
    if (!KEY.test(key)) throw new UsageError(`expected KEY=VALUE with KEY of letters, digits and _ (not starting with a digit), got ${JSON.stringify(pair)}`);
    return { key, value: pair.slice(eq + 1) };
  });
  const path = await target(ctx, options);
  const stored = [];
  for (const { key, value } of parsed) {
    const answer = await ctx.ok(ctx.api.PUT('/v1/projects/{projectId}/apps/{appId}/environment/{key}', { params: { path: { ...path, key } }, body: { value, secret: false } }));
    stored.push(answer.variable);
  }
  if (ctx.json) return printJson({ variables: stored });
  success(`Set ${parsed.map((p) => p.key).join(', ')} on ${path.appId}; the runtime rolls it out now`);
}

async function link(ctx: Context, keys: string[], options: SetOptions, database: string): Promise<void> {
  if (options.full && options.readOnly) throw new UsageError('give --full or --read-only, not both');
  for (const key of keys) if (!KEY.test(key)) throw new UsageError(`with --database, give variable names (letters, digits and _, not starting with a digit), got ${JSON.stringify(key)}`);
  const path = await target(ctx, options);
  const access = options.full ? 'full' : 'read-only';
  const stored = [];
  for (const key of keys) {
    const answer = await ctx.ok(ctx.api.PUT('/v1/projects/{projectId}/apps/{appId}/environment/{key}', { params: { path: { ...path, key } }, body: { database, access } }));
    stored.push(answer.variable);
  }
  if (ctx.json) return printJson({ variables: stored });
  success(`Linked ${keys.join(', ')} on ${path.appId} to database ${database} (${access} token); the runtime rolls it out now`);
}

async function remove(ctx: Context, keys: string[], options: { app?: string }): Promise<void> {
  const path = await target(ctx, options);
  await confirmOrExit(ctx, `Remove ${keys.join(', ')} from ${path.appId}?`);
  for (const key of keys) await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}/environment/{key}', { params: { path: { ...path, key } } }));
  success(`Removed ${keys.join(', ')} from ${path.appId}`);
}

async function pull(ctx: Context, file: string, options: { app?: string }): Promise<void> {
  const path = await target(ctx, options);
  const { environment } = await read(ctx, path);
  if (existsSync(file)) await confirmOrExit(ctx, `Overwrite ${file}?`);
  // A linked variable's token is never shown, so it cannot be written: say so in the file.
  const linked = Object.entries(environment).filter(([, v]) => v.database !== undefined);
  const lines = [
    ...Object.entries(environment).flatMap(([key, v]) => (v.value === undefined || v.database !== undefined ? [] : [`${key}=${dotenvQuote(key, v.value)}`])),
    ...linked.map(
      ([key, v]) => `# ${key}: ${v.provides === 'url' ? 'the URL of' : 'linked to'} database ${v.database ?? ''} (${v.provides === 'url' ? 'given by the runtime' : 'its token is not shown'})`,
    ),
  ];
  // A new file of mode 0600 renamed over the old one: an existing file's mode (or a symlink) is not inherited.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `# Environment of ${path.projectId}/${path.appId}, written by cw env pull\n${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
  const written = lines.length - linked.length;
  success(`Wrote ${written} variable${written === 1 ? '' : 's'} to ${file}${linked.length > 0 ? ` (${linked.length} linked to a database, not written)` : ''}`);
}

/**
 * A .env value that Node's own parser (`--env-file`, util.parseEnv) and the dotenv package both read back
 * exactly. Neither undoes escapes other than `\n` in double quotes, so nothing is escaped: the value is
 * quoted with a quote character it does not contain (single quotes first: nothing inside them is special,
 * newlines included).
 */
export function dotenvQuote(key: string, value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"') && !value.includes('\\n')) return `"${value}"`;
  if (!value.includes('`')) return `\`${value}\``;
  throw new CliError(`${key} cannot be written to a .env file: its value contains every kind of quote`);
}
