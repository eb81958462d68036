import type { Command } from 'commander';
import { act, confirmOrExit, examples, intOption, withJson, withYes, withLimit } from '../command-kit.ts';
import { collectPages } from '../pages.ts';
import { registerAppSource } from './app-source.ts';
import { bindingsLine, registerAppDatabaseBindings } from './app-database-bindings.ts';
import { httpsChange, httpsFields, touchesHsts, type HttpsFlags } from './app-https.ts';
import type { Context } from '../context.ts';
import { ago, note, paint, printFields, printJson, printTable, success } from '../output.ts';
import { FOLLOW_UP_MS, pollUntil } from '../poll.ts';
import { percent, shortCount, sparkline, trafficLine } from './metrics-format.ts';
import { readMetrics, replicasNote } from './metrics.ts';

export function registerApps(program: Command): void {
  const apps = program.command('apps').alias('app').description('List, create, inspect and delete runtime apps');
  examples(act(withLimit(withJson(apps.command('ls').alias('list').description("List the project's apps with their last hour's requests and error ratio, failing ones first"))), list), [
    'cw apps ls',
    'cw apps ls --limit 20',
    'cw apps ls --project shop --json',
  ]);
  examples(
    act(
      withJson(apps.command('create').argument('<name>', 'app name (a DNS label is used as the id as it is)').description('Register an app (nothing is deployed yet; `cw deploy` does that)')),
      create,
    ),
    ['cw apps create web'],
  );
  examples(act(withJson(apps.command('get').alias('show').argument('<app>', 'app id').description("Show an app: what is served, where, and the runtime's status")), get), ['cw apps get web']);
  examples(
    act(
      withJson(
        apps
          .command('update')
          .argument('<app>', 'app id')
          .description("Change an app's HTTPS settings (applied without a redeploy): redirect plain HTTP to HTTPS, send HSTS")
          .option('--https-redirect', 'answer plain-HTTP requests with 308 to the same URL over HTTPS (on hosts with a certificate)')
          .option('--no-https-redirect', 'serve plain HTTP as it is (the default)')
          .option('--hsts', 'send Strict-Transport-Security over HTTPS (max-age one year unless --hsts-max-age says)')
          .option('--no-hsts', 'stop sending it (browsers keep a policy they saw until its max-age runs out)')
          .option('--hsts-max-age <seconds>', 'how long browsers keep to HTTPS (0-63072000; 0 makes them forget)', intOption(0, 63_072_000))
          .option('--hsts-include-subdomains', 'the policy covers every subdomain of the hosts too')
          .option('--no-hsts-include-subdomains', 'the policy covers the hosts only')
          .option('--hsts-preload', 'add preload (needs --hsts-include-subdomains and a max-age of a year or more; hard to undo, see docs/tls.md)')
          .option('--no-hsts-preload', 'leave preload out'),
      ),
      update,
    ),
    ['cw apps update web --https-redirect --hsts', 'cw apps update web --hsts-max-age 63072000 --hsts-include-subdomains', 'cw apps update web --no-https-redirect --no-hsts --json'],
  );
  examples(
    act(
      withJson(withYes(apps.command('rm').alias('delete').argument('<app>', 'app id').description('Delete an app with its builds, environment and host names, and report what was cleaned up'))),
      remove,
    ),
    ['cw apps rm web', 'cw apps rm web --yes --json'],
  );
  registerAppSource(apps);
  registerAppDatabaseBindings(apps);
}

async function list(ctx: Context, options: { limit?: number }): Promise<void> {
  const projectId = await ctx.project();
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps', { params: { path: { projectId }, query } }));
    return { items: page.apps, next: page.next };
  }, options.limit);
  const answer = { apps: items, next };
  if (ctx.json) return printJson(answer);
  // Failing apps first: the highest error ratio of the last hour on top, then the API's order.
  const ratio = (a: (typeof answer.apps)[number]) => a.traffic?.error_ratio ?? -1;
  printTable(
    ['APP', 'NAME', 'BUILD', 'READY', 'REQ 1H', 'ERRORS', 'URL'],
    answer.apps
      .toSorted((a, b) => ratio(b) - ratio(a))
      .map((a) => [a.app_id, a.name, a.active_build_id, a.ready, a.traffic ? shortCount(a.traffic.requests) : '?', a.traffic ? percent(a.traffic.error_ratio) : '?', a.url]),
    'No apps yet: deploy one with `cw deploy DIR --app NAME`.',
  );
}

async function create(ctx: Context, name: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/apps', { params: { path: { projectId } }, body: { name } }));
  if (ctx.json) return printJson(answer);
  success(`Created app ${answer.app.app_id} in ${projectId}; deploy it with \`cw deploy DIR --app ${answer.app.app_id}\``);
}

async function get(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson(answer);
  const { app } = answer;
  printFields([
    ['App', app.app_id],
    ['Name', app.name],
    ['Ready', app.ready],
    ['Status', app.status_reason ? `${app.status_reason}: ${app.status_message ?? ''}` : app.status_message],
    ['Active build', app.active_build_id],
    ['Serving build', app.serving_build_id],
    ['URL', app.url],
    ['Hosts', app.hosts.join(', ')],
    ['Builds', app.builds.length],
    ['Repository', app.source_message ? `${app.source} (${app.source_message})` : app.source],
    ['Preview of', app.preview_of ? `${app.preview_of} (branch ${app.branch ?? '?'})` : undefined],
    ...httpsFields(app.https),
    ['Databases', await bindingsLine(ctx, projectId, app.app_id)],
    ['Created', `${app.created_at} (${ago(app.created_at)})`],
    ['Last hour', await lastHour(ctx, app.app_id)],
  ]);
}

/** `requests 7.2k · errors 0.3 % · p95 20 ms`, and a sparkline of requests/s on a terminal. */
async function lastHour(ctx: Context, appId: string): Promise<string> {
  const m = await readMetrics(ctx, appId, '1h').catch(() => undefined);
  if (!m) return 'unknown (the metrics could not be read)';
  if (m.replicas.answered === 0) return `unknown (${replicasNote(m.replicas)})`;
  const line = trafficLine({ requests: m.totals.requests, error_ratio: m.totals.error_ratio, p95_ms: m.totals.p95_ms });
  return process.stdout.isTTY ? `${line}  ${sparkline(m.points.map((p) => p.requests_per_second))}` : line;
}

async function update(ctx: Context, appId: string, flags: HttpsFlags): Promise<void> {
  const projectId = await ctx.project();
  const params = { path: { projectId, appId } };
  // HSTS is replaced whole by the API: the current one fills in what the flags leave out.
  const current = touchesHsts(flags) ? (await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}', { params }))).app.https : undefined;
  const answer = await ctx.ok(ctx.api.PATCH('/v1/projects/{projectId}/apps/{appId}', { params, body: { https: httpsChange(flags, current) } }));
  if (ctx.json) return printJson(answer);
  success(`Updated app ${answer.app.app_id}`);
  printFields(httpsFields(answer.app.https));
}

async function remove(ctx: Context, appId: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Delete app ${appId} of ${projectId}, its builds, environment and host names?`);
  const call = () => ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}', { params: { path: { projectId, appId } } });
  let report = await ctx.ok(call());
  // 202: the platform was still deleting the stored artifacts. The same DELETE waits again (and answers the
  // final report once the app is gone); a 404 means it went between two calls.
  if (report.status === 'deleting') {
    if (!ctx.json) note(`The platform is still deleting the stored builds of ${appId}: waiting…`);
    const again = async () => {
      const { data, response } = await call();
      return response.status === 404 ? { ...report, status: 'deleted' as const } : (data ?? report);
    };
    report = (await pollUntil(again, (r) => r.status === 'deleted', FOLLOW_UP_MS, 0)).value;
  }
  if (ctx.json) return printJson(report);
  const { deleted } = report;
  if (report.status === 'deleted') success(`Deleted app ${report.app_id}`);
  else note(`App ${report.app_id} is still being deleted (its stored builds); \`cw apps rm ${report.app_id}\` again follows it.`);
  printFields([
    ['Routing pointer', deleted.routing_pointer ? 'removed' : 'none'],
    ['Runtime resources', deleted.runtime_resources],
    ['Build artifacts', deleted.build_artifacts],
    ['Environment keys', deleted.environment_keys],
    ['DNS records', deleted.dns_records],
    ['Host names', deleted.hostnames.join(', ')],
  ]);
  for (const pending of report.dns_cleanup_pending) {
    note(
      `${paint('yellow', '!', process.stderr)} ${pending.hostname}: remove its DNS records at your DNS provider${pending.records.length > 0 ? ` (${pending.records.map((r) => `${r.record_type} ${r.name} ${r.value}`).join('; ')})` : ''}, or another app could claim the name later`,
    );
  }
}
