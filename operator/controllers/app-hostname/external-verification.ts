// Whether the records an owner was asked to publish for an external hostname are live: each is looked up
// through the configured recursive resolver (make dev and the tests: the `test.` parent-zone server, which
// answers for its zone directly) and must answer the value exactly.
import { getServers } from 'node:dns';
import type { RequiredDnsRecord } from '../../../src/apis/v1alpha1/app-hostname.ts';
import { DnsQueryError, parseServerAddress, queryDns } from '../../../src/dns/dns-client.ts';
import { normalizeName } from '../../../src/dns/names.ts';

export interface VerificationResult {
  readonly ok: boolean;
  /** One line per record that is not live, saying what the resolver answered instead. */
  readonly problems: readonly string[];
  /** A look-up got no answer (a timeout, a resolver out of reach): not live says nothing of what is published. */
  readonly inconclusive?: true;
}

function text(data: unknown): string {
  if (Array.isArray(data)) return data.map((d) => (Buffer.isBuffer(d) ? d.toString('utf8') : String(d))).join('');
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function canonical(type: string, value: string): string {
  return type === 'TXT' ? value : normalizeName(value);
}

/**
 * Looks every record up; never throws for DNS trouble (it is a problem line saying the check can be repeated).
 * No records prove nothing: an empty list never passes.
 */
export async function verifyExternalRecords(records: readonly RequiredDnsRecord[], resolver: string | undefined, timeoutMs: number): Promise<VerificationResult> {
  if (records.length === 0) return { ok: false, problems: ['there are no records to look up, so nothing proves the name points here'] };
  const configured = resolver ?? getServers()[0];
  if (!configured) return { ok: false, problems: ['no DNS resolver is configured to look the records up; an operator must set CW_DNS_RESOLVER'] };
  const server = parseServerAddress(configured);
  const problems: string[] = [];
  let inconclusive = false;
  for (const record of records) {
    const shown = `${record.recordType} ${record.name} → ${record.value}`;
    try {
      const response = await queryDns(server, record.name, record.recordType, { timeoutMs, recursionDesired: true });
      const found = response.answers
        .filter((a) => a.type === record.recordType && normalizeName(a.name) === normalizeName(record.name))
        .map((a) => canonical(record.recordType, text((a as { data?: unknown }).data)));
      if (found.includes(canonical(record.recordType, record.value))) continue;
      if (response.rcode !== 'NOERROR') problems.push(`${shown}: not published yet (the resolver answers ${response.rcode})`);
      else if (found.length === 0) problems.push(`${shown}: not published yet (no ${record.recordType} record at ${record.name})`);
      else problems.push(`${shown}: the published value is ${found.join(', ')}`);
    } catch (err) {
      if (!(err instanceof DnsQueryError)) throw err;
      inconclusive = true;
      problems.push(`${shown}: the resolver ${err.kind === 'timeout' ? 'did not answer in time' : 'could not be reached'}; finalize can be repeated`);
    }
  }
  return { ok: problems.length === 0, problems, ...(inconclusive ? { inconclusive } : {}) };
}
