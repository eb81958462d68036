// Project domains (DNS the platform hosts once the owner delegates it) and their records.
import type { Command } from 'commander';
import { act, choiceOption, confirmOrExit, examples, intOption, withJson, withYes, withLimit } from '../command-kit.ts';
import { collectPages } from '../pages.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { ago, note, paint, printFields, printJson, printTable, println, success } from '../output.ts';
import type { paths } from '../api/schema.ts';
import { FOLLOW_UP_MS, pollUntil } from '../poll.ts';
import { tlsFields } from './tls-status.ts';

type Domain = paths['/v1/projects/{projectId}/domains/{domain}']['get']['responses'][200]['content']['application/json']['domain'];

const RECORD_TYPES = ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT'] as const;
/** A record type in any case, as the API takes it. */
const recordType = (value: string): string => choiceOption(RECORD_TYPES)(value.toUpperCase());

export function registerDomains(program: Command): void {
  const domains = program.command('domains').alias('domain').description('Add project domains, delegate them to the platform and check the delegation');
  examples(
    act(
      withJson(domains.command('add').argument('<domain>', 'domain name, e.g. shop.example.com').description('Add a domain: the platform creates its DNS zone and prints the nameservers to set')),
      add,
    ),
    ['cw domains add shop.example.com'],
  );
  examples(act(withLimit(withJson(domains.command('ls').alias('list').description("List the project's domains"))), list), ['cw domains ls']);
  examples(act(withJson(domains.command('get').alias('show').argument('<domain>').description('Show a domain: status, why it is pending, its nameservers')), get), ['cw domains get shop.example.com']);
  examples(act(withJson(domains.command('check').argument('<domain>').description('Check the delegation now: managed once the parent zone lists the nameservers')), check), [
    'cw domains check shop.example.com',
  ]);
  examples(act(withJson(withYes(domains.command('rm').alias('delete').argument('<domain>').description('Delete a domain with its records and DNS zone'))), remove), [
    'cw domains rm shop.example.com --yes',
  ]);

  const records = program.command('records').alias('dns').description("List and change a project domain's DNS records");
  examples(act(withLimit(withJson(records.command('ls').alias('list').argument('<domain>').description('List the records'))), listRecords), ['cw records ls shop.example.com']);
  examples(
    act(
      withJson(
        records
          .command('add')
          .argument('<domain>', 'the project domain')
          .argument('<name>', 'name relative to the domain (@ for the apex)')
          .argument('<type>', RECORD_TYPES.join(', '), recordType)
          .argument('<values...>', 'one or more values')
          .option('--ttl <seconds>', 'time to live (60-86400; default 300)', intOption(60, 86_400))
          .description('Create a record (the domain must be managed)'),
      ),
      addRecord,
    ),
    ['cw records add shop.example.com api A 192.0.2.10', 'cw records add shop.example.com @ MX "10 mail.example.net" --ttl 3600'],
  );
  examples(
    act(
      withJson(
        records
          .command('set')
          .argument('<domain>', 'the project domain')
          .argument('<record>', 'record id (see `cw records ls`)')
          .option('--name <name>', 'new name')
          .option('--type <type>', 'new type', recordType)
          .option('--value <value...>', 'new values (replace the stored ones)')
          .option('--ttl <seconds>', 'new time to live', intOption(60, 86_400))
          .description('Change a record; what you leave out stays as it is'),
      ),
      setRecord,
    ),
    ['cw records set shop.example.com rec-1a2b3c --value 192.0.2.20', 'cw records set shop.example.com rec-1a2b3c --ttl 60'],
  );
  examples(act(withJson(withYes(records.command('rm').alias('delete').argument('<domain>').argument('<record>', 'record id').description('Delete a record'))), removeRecord), [
    'cw records rm shop.example.com rec-1a2b3c --yes',
  ]);
}

async function add(ctx: Context, domain: string): Promise<void> {
  const projectId = await ctx.project();
  const request = ctx.api.POST('/v1/projects/{projectId}/domains', { params: { path: { projectId } }, body: { domain, dns_mode: 'zone_delegated' } });
  let answer = await ctx.ok(request);
  // 202: the zone was not created within the API's bound; its nameservers come once it is.
  if ((await request).response.status === 202) {
    if (!ctx.json) note(`The DNS zone of ${answer.domain.domain} is still being created: waiting for its nameservers…`);
    const read = () => ctx.ok(ctx.api.GET('/v1/projects/{projectId}/domains/{domain}', { params: { path: { projectId, domain: answer.domain.domain } } }));
    answer = (await pollUntil(read, (a) => a.domain.nameservers.length > 0, FOLLOW_UP_MS)).value;
  }
  if (ctx.json) return printJson(answer);
  success(`Added ${answer.domain.domain} to ${projectId}`);
  delegationAdvice(answer.domain);
}

async function list(ctx: Context, options: { limit?: number }): Promise<void> {
  const projectId = await ctx.project();
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/domains', { params: { path: { projectId }, query } }));
    return { items: page.domains, next: page.next };
  }, options.limit);
  const answer = { domains: items, next };
  if (ctx.json) return printJson(answer);
  printTable(
    ['DOMAIN', 'STATUS', 'NAMESERVERS', 'CHECKED', 'ADDED'],
    answer.domains.map((d) => [d.domain, d.status, d.nameservers.length > 1 ? `${d.nameservers[0]} +${d.nameservers.length - 1}` : d.nameservers[0], ago(d.last_checked_at), ago(d.created_at)]),
    'No domains yet: add one with `cw domains add DOMAIN`.',
  );
}

async function get(ctx: Context, domain: string): Promise<void> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/domains/{domain}', { params: { path: { projectId, domain } } }));
  if (ctx.json) return printJson(answer);
  showDomain(answer.domain);
}

async function check(ctx: Context, domain: string): Promise<void> {
  const projectId = await ctx.project();
  const request = ctx.api.POST('/v1/projects/{projectId}/domains/{domain}/delegation-check', { params: { path: { projectId, domain } } });
  const answer = await ctx.ok(request);
  if (ctx.json) return printJson(answer);
  // 202: the controller has not answered within the API's bound; the domain is shown as it stands.
  if ((await request).response.status === 202) note(`The check is still running: run \`cw domains check ${domain}\` again in a moment.`);
  if (answer.domain.status === 'managed') success(`${answer.domain.domain} is delegated: the platform answers its DNS and records can be written`);
  else showDomain(answer.domain);
}

async function remove(ctx: Context, domain: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Delete ${domain} from ${projectId}, with every record and its DNS zone?`);
  const answer = await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/domains/{domain}', { params: { path: { projectId, domain } } }));
  if (ctx.json) return printJson(answer);
  success(`Deleted ${answer.domain.domain}: its records and zone are gone; remove the NS records at your registrar too`);
}

function showDomain(d: Domain): void {
  printFields([
    ['Domain', d.domain],
    ['Status', d.status],
    ['Why', d.status_message],
    // While pending, the advice below lists the nameservers to set.
    ...(d.status === 'pending_delegation' ? [] : ([['Nameservers', d.nameservers.join(' ')]] as const)),
    ['Zone', d.hosted_zone_id],
    ['Last checked', d.last_checked_at ? `${d.last_checked_at} (${ago(d.last_checked_at)})` : undefined],
    ['Added', d.created_at],
    ...tlsFields(d.tls),
  ]);
  if (d.status === 'pending_delegation') delegationAdvice(d);
}

/** What the owner does next: set these nameservers at the registrar, then check. */
function delegationAdvice(d: Domain): void {
  if (d.status !== 'pending_delegation') return;
  if (d.nameservers.length === 0) {
    note(`The DNS zone is still being created: run \`cw domains get ${d.domain}\` in a moment for its nameservers.`);
    return;
  }
  println();
  println(`Set these nameservers for ${paint('bold', d.domain)} at your registrar (or in the parent zone):`);
  for (const ns of d.nameservers) println(`  ${paint('cyan', ns)}`);
  println(`Then run ${paint('bold', `cw domains check ${d.domain}`)}; records can be written once it is managed.`);
}

async function listRecords(ctx: Context, domain: string, options: { limit?: number }): Promise<void> {
  const projectId = await ctx.project();
  const { items, next } = await collectPages(async (query) => {
    const page = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/domains/{domain}/records', { params: { path: { projectId, domain }, query } }));
    return { items: page.records, next: page.next };
  }, options.limit);
  const answer = { records: items, next };
  if (ctx.json) return printJson(answer);
  printTable(
    ['ID', 'NAME', 'TYPE', 'VALUES', 'TTL', 'STATUS', 'OWNER'],
    answer.records.map((r) => [r.record_id, r.name, r.type, r.values.join(' '), r.ttl, r.status, r.owner ? `app ${r.owner.owner_resource_id}` : '']),
    `${domain} has no records yet: add one with \`cw records add ${domain} NAME TYPE VALUE\`.`,
  );
}

async function addRecord(ctx: Context, domain: string, name: string, type: string, values: string[], options: { ttl?: number }): Promise<void> {
  const projectId = await ctx.project();
  const body = { name, type, values, ...(options.ttl ? { ttl: options.ttl } : {}) };
  const answer = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/domains/{domain}/records', { params: { path: { projectId, domain } }, body }));
  if (ctx.json) return printJson(answer);
  const r = answer.record;
  success(`Added ${r.type} ${r.fqdn} → ${r.values.join(' ')} (${r.record_id}): ${r.status}${r.status === 'applied' ? '' : `, ${r.status_message}`}`);
}

async function setRecord(ctx: Context, domain: string, recordId: string, options: { name?: string; type?: string; value?: string[]; ttl?: number }): Promise<void> {
  const body = {
    ...(options.name ? { name: options.name } : {}),
    ...(options.type ? { type: options.type } : {}),
    ...(options.value ? { values: options.value } : {}),
    ...(options.ttl ? { ttl: options.ttl } : {}),
  };
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: pass --name, --type, --value or --ttl');
  const projectId = await ctx.project();
  const answer = await ctx.ok(ctx.api.PUT('/v1/projects/{projectId}/domains/{domain}/records/{recordId}', { params: { path: { projectId, domain, recordId } }, body }));
  if (ctx.json) return printJson(answer);
  const r = answer.record;
  success(`Updated ${r.record_id}: ${r.type} ${r.fqdn} → ${r.values.join(' ')} ttl ${r.ttl} (${r.status})`);
}

async function removeRecord(ctx: Context, domain: string, recordId: string): Promise<void> {
  const projectId = await ctx.project();
  await confirmOrExit(ctx, `Delete record ${recordId} of ${domain}?`);
  const answer = await ctx.ok(ctx.api.DELETE('/v1/projects/{projectId}/domains/{domain}/records/{recordId}', { params: { path: { projectId, domain, recordId } } }));
  if (ctx.json) return printJson(answer);
  success(`Deleted ${answer.record.type} ${answer.record.fqdn}`);
}
