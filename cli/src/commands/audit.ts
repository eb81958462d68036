// `cw audit`: the project's audit trail, newest first, a page at a time.
import type { Command } from 'commander';
import type { paths } from '../api/schema.ts';
import { act, choiceOption, examples, intOption, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { note, printJson, printTable, terminalSafe } from '../output.ts';

type Entry = paths['/v1/projects/{projectId}/audit']['get']['responses'][200]['content']['application/json']['entries'][number];
type ResourceType = Entry['resource']['type'];

const RESOURCE_TYPES: readonly ResourceType[] = ['project', 'member', 'app', 'environment_variable', 'hostname', 'domain', 'dns_record', 'database', 'git_token'];

export function registerAudit(program: Command): void {
  examples(
    act(
      withJson(
        program
          .command('audit')
          .option('--type <resource-type>', `only entries about one kind of resource: ${RESOURCE_TYPES.join(', ')}`, choiceOption(RESOURCE_TYPES))
          .option('--limit <n>', 'entries per page (1 to 100)', intOption(1, 100), 50)
          .option('--cursor <id>', 'continue after this entry (the cursor the previous page printed)')
          .description('Show the project’s audit trail: who changed what, when, the request id and the outcome, newest first'),
      ),
      audit,
    ),
    ['cw audit', 'cw audit --type app --limit 10', 'cw audit --json | jq -r ".entries[] | [.time, .action, .request_id] | @tsv"'],
  );
}

async function audit(ctx: Context, options: { type?: ResourceType; limit: number; cursor?: string }): Promise<void> {
  const projectId = await ctx.project();
  const query = { limit: options.limit, ...(options.type ? { resource_type: options.type } : {}), ...(options.cursor ? { cursor: options.cursor } : {}) };
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/audit', { params: { path: { projectId }, query } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['TIME', 'USER', 'TOKEN', 'ACTION', 'RESOURCE', 'STATUS', 'REQUEST ID'],
    answer.entries.map((e) => [e.time, e.principal.user_id, e.principal.token_name ?? e.principal.token_id, e.action, resourceOf(e), e.status ?? 'pending', e.request_id]),
    'No audit entries.',
  );
  if (answer.next) note(`More: cw audit --cursor ${answer.next}${options.type ? ` --type ${options.type}` : ''}`);
}

function resourceOf(entry: Entry): string {
  const { id, app_id: app, domain } = entry.resource;
  const within = app ? ` (app ${app})` : domain ? ` (domain ${domain})` : '';
  // What a request named, recorded as sent: shown as text, never as terminal control.
  return terminalSafe(`${id ?? '-'}${within}`, '');
}
