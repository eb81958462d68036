// An app's database bindings: the runtime gives the app `<NAME>_URL` and `<NAME>_TOKEN`, a token the platform
// mints and rotates (docs/databases.md, "Runtime apps and databases"); no answer ever holds it.
import type { Command } from 'commander';
import { act, confirmOrExit, examples, withJson, withYes } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { printJson, printTable, success } from '../output.ts';

/** As the API's default-less route is called when --as is not given: DATABASE_URL and DATABASE_TOKEN. */
const DEFAULT_NAME = 'DATABASE';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function registerAppDatabaseBindings(apps: Command): void {
  examples(
    act(
      withJson(
        apps
          .command('bind-db')
          .argument('<app>', 'app id')
          .argument('<database>', 'a database of the project')
          .description('Bind a database to the app: it reads <NAME>_URL and <NAME>_TOKEN (a token the platform rotates, never shown)')
          .option('--as <name>', `binding name, the start of the two variables (default ${DEFAULT_NAME})`)
          .option('--full', 'a token that reads and writes')
          .option('--read-only', 'a token that only reads (the default)'),
      ),
      bind,
    ),
    ['cw apps bind-db web orders --full', 'cw apps bind-db web analytics --as ANALYTICS'],
  );
  examples(
    act(withYes(apps.command('unbind-db').argument('<app>', 'app id').argument('[name]', `binding name (default ${DEFAULT_NAME})`).description('Remove a database binding (both variables)')), unbind),
    ['cw apps unbind-db web --yes'],
  );
  examples(act(withJson(apps.command('bindings').argument('<app>', 'app id').description("List the app's database bindings")), list), ['cw apps bindings web']);
}

const path = async (ctx: Context, appId: string, name: string) => ({ projectId: await ctx.project(), appId, name });

async function bind(ctx: Context, appId: string, database: string, options: { as?: string; full?: boolean; readOnly?: boolean }): Promise<void> {
  if (options.full && options.readOnly) throw new UsageError('give --full or --read-only, not both');
  const name = options.as ?? DEFAULT_NAME;
  if (!NAME.test(name)) throw new UsageError(`--as takes letters, digits and _ (not starting with a digit), got ${JSON.stringify(name)}`);
  const access = options.full ? 'full' : 'read-only';
  const answer = await ctx.ok(ctx.api.PUT('/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', { params: { path: await path(ctx, appId, name) }, body: { database, access } }));
  if (ctx.json) return printJson(answer);
  const { variables } = answer.binding;
  success(
    `Bound database ${database} to ${appId} as ${variables.url} and ${variables.token} (${access === 'full' ? 'reads and writes' : 'reads only; bind with --full to write'}); the runtime rolls it out now`,
  );
}

async function unbind(ctx: Context, appId: string, name: string | undefined): Promise<void> {
  const binding = name ?? DEFAULT_NAME;
  await confirmOrExit(ctx, `Unbind ${binding} from ${appId}? The app loses ${binding}_URL and ${binding}_TOKEN.`);
  await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', { params: { path: await path(ctx, appId, binding) } }));
  success(`Unbound ${binding} from ${appId}; the runtime rolls it out now`);
}

async function list(ctx: Context, appId: string): Promise<void> {
  const { projectId } = await path(ctx, appId, DEFAULT_NAME);
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/database-bindings', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['NAME', 'DATABASE', 'ACCESS', 'VARIABLES'],
    answer.bindings.map((b) => [b.name, b.database, b.access, `${b.variables.url}, ${b.variables.token}`]),
    `${appId} has no database bindings: bind one with \`cw apps bind-db ${appId} <database>\`.`,
  );
}

/**
 * The app's bindings in one line for `cw apps get` (`DATABASE: orders, full`), or undefined when it has none or
 * they cannot be read (a token without env:read): the app's view does without them.
 */
export async function bindingsLine(ctx: Context, projectId: string, appId: string): Promise<string | undefined> {
  const answer = await ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/database-bindings', { params: { path: { projectId, appId } } }).catch(() => undefined);
  const bindings = answer?.data?.bindings ?? [];
  return bindings.length > 0 ? bindings.map((b) => `${b.name}: ${b.database}, ${b.access}`).join('; ') : undefined;
}
