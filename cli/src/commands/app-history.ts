// `cw apps history APP`: the app's deploy history (GET …/apps/{appId}/deployments), as the operator recorded it.
import type { Command } from 'commander';
import { act, examples, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { ago, paint, printJson, printTable } from '../output.ts';

/** Registers `history` under `cw apps` (commands/apps.ts registers the group, which must run first). */
export function registerAppHistory(program: Command): void {
  const apps = program.commands.find((c) => c.name() === 'apps');
  if (!apps) throw new Error('cw apps is registered by registerApps, which must run first');
  examples(act(withJson(apps.command('history').argument('<app>', 'app id').description('List the latest activations of a build: when, by whom or which commit, how long until served')), history), [
    'cw apps history web',
    'cw apps history web --json',
  ]);
}

async function history(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/deployments', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['BUILD', 'KIND', 'ACTIVATED', 'BY', 'SERVED IN', 'ROLLOUT'],
    answer.deployments.map((d) => [
      d.active ? `${d.build_id} ${paint('green', '(active)')}` : d.build_id,
      d.kind,
      ago(d.activated_at),
      d.by ?? paint('dim', 'kubectl or other'),
      d.seconds_to_serve !== undefined ? `${d.seconds_to_serve} s` : d.aborted_at ? paint('red', 'aborted') : paint('yellow', 'not yet'),
      d.rollout_steps?.map((s) => `${s.weight} %`).join(' → ') ?? '-',
    ]),
    `No build of ${appId} was activated yet: \`cw deploy\` one.`,
  );
}
