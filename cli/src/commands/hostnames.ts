// Custom host names of an app: attach (the platform says which records must exist), publish, finalize.
import type { Command } from 'commander';
import { act, appOf, confirmOrExit, examples, withJson, withYes } from '../command-kit.ts';
import type { paths } from '../api/schema.ts';
import type { Context } from '../context.ts';
import { ago, note, paint, printJson, printTable, println, success } from '../output.ts';
import { FOLLOW_UP_MS, pollUntil } from '../poll.ts';
import { tlsCell } from './tls-status.ts';

type Hostname = paths['/v1/projects/{projectId}/apps/{appId}/domains']['get']['responses'][200]['content']['application/json']['domains'][number];

/** The platform has not said yet what the records are (external) or how writing them went (managed). */
const unanswered = (h: Hostname): boolean => (h.managed_dns ? h.managed_dns.status === 'pending' : (h.dns_records ?? []).length === 0);

export function registerHostnames(program: Command): void {
  const hostnames = program.command('hostnames').alias('hostname').description('Serve an app on your own host names: attach, publish the records, finalize');
  const app = (c: Command): Command => c.option('--app <app>', 'app id (default: CW_APP)');
  examples(
    act(
      withJson(
        app(
          hostnames
            .command('attach')
            .argument('<hostname>', 'the host name, e.g. www.example.com')
            .option('--managed', 'let the platform write the records in one of your managed project domains (dns_mode managed_project_domain)')
            .description('Bind a host name to the app and print the DNS records to publish (or that the platform wrote)'),
        ),
      ),
      attach,
    ),
    ['cw hostnames attach www.example.com --app web', 'cw hostnames attach www.shop.example.com --managed --app web'],
  );
  examples(act(withJson(app(hostnames.command('finalize').argument('<hostname>').description('Activate the host name once its records are live'))), finalize), [
    'cw hostnames finalize www.example.com --app web',
  ]);
  examples(act(withJson(app(hostnames.command('ls').alias('list').description("List the app's host names and their state"))), list), ['cw hostnames ls --app web']);
  examples(act(withYes(app(hostnames.command('rm').alias('detach').argument('<hostname>').description('Detach a host name: the app is no longer served on it'))), remove), [
    'cw hostnames rm www.example.com --app web --yes',
  ]);
}

async function attach(ctx: Context, domain: string, options: { app?: string; managed?: boolean }): Promise<void> {
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  const request = ctx.api.POST('/v1/projects/{projectId}/apps/{appId}/domains', {
    params: { path: { projectId, appId } },
    body: { domain, dns_mode: options.managed ? 'managed_project_domain' : 'external_records' },
  });
  let answer: Hostname = await ctx.ok(request);
  // 202 before the platform answered (not a failure): the binding stands, and its records follow.
  if ((await request).response.status === 202 && unanswered(answer)) {
    if (!ctx.json) note(`The platform has not answered for ${answer.domain} yet: waiting for its records…`);
    const attached = answer;
    const read = async () => (await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/domains', { params: { path: { projectId, appId } } }))).domains.find((h) => h.domain === attached.domain);
    answer = (await pollUntil(read, (h) => h === undefined || !unanswered(h), FOLLOW_UP_MS)).value ?? answer;
  }
  if (ctx.json) return printJson(answer);
  success(`Attached ${answer.domain} to ${appId} (${answer.status})`);
  if (!answer.managed_dns && (answer.dns_records ?? []).length === 0) note(`The records to publish are not known yet: see \`cw hostnames ls --app ${appId}\` in a moment.`);
  else if (answer.dns_records) {
    println('Publish these records at your DNS provider, exactly as shown:');
    printTable(
      ['TYPE', 'NAME', 'VALUE'],
      answer.dns_records.map((r) => [r.record_type, r.name, r.value]),
    );
  }
  if (answer.managed_dns) {
    if (answer.managed_dns.status === 'applied') println(`The platform wrote the records in ${answer.managed_dns.project_domain}.`);
    else if (answer.managed_dns.status === 'pending') note(`The records are still being written in ${answer.managed_dns.project_domain}: see \`cw hostnames ls --app ${appId}\` in a moment.`);
    else note(`${paint('yellow', '!', process.stderr)} Writing the records in ${answer.managed_dns.project_domain} failed for now; the platform keeps retrying (run the same attach again to see).`);
  }
  println(`Then run ${paint('bold', `cw hostnames finalize ${answer.domain} --app ${appId}`)}.`);
}

async function finalize(ctx: Context, domain: string, options: { app?: string }): Promise<void> {
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/apps/{appId}/domains/{domain}/finalize', { params: { path: { projectId, appId, domain } } }));
  if (ctx.json) return printJson(answer);
  if (answer.status === 'active') success(`${answer.domain} is active: ${appId} is served on it`);
  else note(`${answer.domain} is ${answer.status}: ${answer.status_message}`);
}

async function list(ctx: Context, options: { app?: string }): Promise<void> {
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/domains', { params: { path: { projectId, appId } } }));
  if (ctx.json) return printJson(answer);
  printTable(
    ['HOSTNAME', 'MODE', 'STATUS', 'TLS', 'WHY', 'ATTACHED'],
    answer.domains.map((h) => [h.domain, h.dns_mode, h.status, tlsCell(h.tls), why(h), ago(h.created_at)]),
    `${appId} has no custom host names: attach one with \`cw hostnames attach HOSTNAME --app ${appId}\`.`,
  );
}

/** What a host name waits for; once active, why its certificate's last order failed, if it did. */
const why = (h: Hostname): string => (h.status === 'active' ? (h.tls.last_error?.message ?? '') : h.status_message);

async function remove(ctx: Context, domain: string, options: { app?: string }): Promise<void> {
  const projectId = await ctx.project();
  const appId = appOf(options, ctx.env);
  await confirmOrExit(ctx, `Detach ${domain} from ${appId}? The app will no longer be served on it.`);
  const request = ctx.api.DELETE('/v1/projects/{projectId}/apps/{appId}/domains/{domain}', { params: { path: { projectId, appId, domain } } });
  await ctx.ok(request);
  const { response } = await request;
  success(`Detached ${domain} from ${appId}${response.status === 202 ? ': the records the platform wrote for it are still leaving the zone' : ''}`);
  note('Records you published for it at your own DNS provider are yours to remove.');
}
