// The certificate of a host name or a domain, for people: one table cell, or the fields `cw domains get` shows.
import type { paths } from '../api/schema.ts';

export type Tls = paths['/v1/projects/{projectId}/domains/{domain}']['get']['responses'][200]['content']['application/json']['domain']['tls'];

/** The date part of an ISO 8601 instant (the table has no room for the time; `--json` carries it whole). */
const day = (iso: string): string => iso.slice(0, 10);

/** `issued until 2027-02-27`, `renewing until …`, `failed: <reason>`, or the status alone; `-` when there is no certificate. */
export function tlsCell(tls: Tls): string {
  if (tls.status === 'none') return '-';
  if ((tls.status === 'issued' || tls.status === 'renewing') && tls.not_after) return `${tls.status} until ${day(tls.not_after)}`;
  if (tls.status === 'failed' && tls.last_error) return `failed: ${tls.last_error.reason}`;
  return tls.status;
}

/** The rows of `cw domains get` for the certificate: state, expiry, issuer, and why the last order failed. */
export function tlsFields(tls: Tls): [string, string | undefined][] {
  if (tls.status === 'none') return [['Certificate', 'none yet (issued once the domain is managed, where this platform issues certificates)']];
  return [
    ['Certificate', tls.status],
    ['Expires', tls.not_after ?? undefined],
    ['Issuer', tls.issuer ?? undefined],
    ...(tls.last_error ? ([['Last error', `${tls.last_error.message} (${tls.last_error.reason}, ${tls.last_error.at})`]] as [string, string][]) : []),
    ...(tls.next_attempt_at ? ([['Next attempt', tls.next_attempt_at]] as [string, string][]) : []),
  ];
}
