import { AcmeProblem } from '../../acme/problem.ts';

/** Why an order failed, as `status.lastError` says it. */
export interface OrderFailure {
  readonly reason: string;
  readonly message: string;
  /** The CA named when to come back (`Retry-After` on a rate limit): the back-off is at least this. */
  readonly retryAfterMs?: number;
}

/** The first retry after a failure; doubled with each further failure in a row, up to {@link MAX_BACKOFF_MS}. */
export const MIN_BACKOFF_MS = 60_000;
/** A name that keeps failing is tried once a day (Caddy's and cert-manager's ceiling). */
export const MAX_BACKOFF_MS = 24 * 3600 * 1000;

/** When to try again after `failures` failures in a row (the one just now included). */
export function backoffMs(failures: number, retryAfterMs = 0): number {
  const doubled = MIN_BACKOFF_MS * 2 ** Math.min(Math.max(failures - 1, 0), 20);
  return Math.max(Math.min(doubled, MAX_BACKOFF_MS), retryAfterMs);
}

/** What a user can do about each ACME error type the CA may answer (RFC 8555 §6.7). */
const REASONS: Readonly<Record<string, { reason: string; hint: string }>> = {
  caa: { reason: 'CAAForbidden', hint: 'A CAA record of the domain forbids this CA: add one that allows it, or remove the CAA records.' },
  dns: { reason: 'DnsProblem', hint: 'The CA could not resolve the name: check that its records are published.' },
  connection: { reason: 'DnsNotPointingHere', hint: 'The CA could not reach the platform on the name: its CNAME (or A/AAAA) records must point at the runtime.' },
  unauthorized: {
    reason: 'ChallengeFailed',
    hint: 'The CA did not find the platform’s answer on the name: its records must point at the runtime and nothing in front of it may answer /.well-known/acme-challenge/.',
  },
  incorrectResponse: { reason: 'ChallengeFailed', hint: 'The CA found another answer on the name than the platform’s: its records must point at the runtime.' },
  rateLimited: { reason: 'RateLimited', hint: 'The CA’s rate limit: the platform tries again when it allows.' },
  rejectedIdentifier: { reason: 'NameRejected', hint: 'The CA will not issue for this name.' },
  unsupportedIdentifier: { reason: 'NameRejected', hint: 'The CA will not issue for this name.' },
  invalidProfile: { reason: 'InvalidProfile', hint: 'The CA does not offer the profile asked for.' },
  serverInternal: { reason: 'CAUnavailable', hint: 'The CA failed; the platform tries again.' },
};

/** A dns-01 challenge's answer is a TXT record, not a path on the name: what its refusals mean. */
const DNS01_REASONS: Readonly<Record<string, { reason: string; hint: string }>> = {
  unauthorized: { reason: 'ChallengeFailed', hint: 'The CA did not find the platform’s TXT record at _acme-challenge of the name: the zone must answer for it.' },
  incorrectResponse: { reason: 'ChallengeFailed', hint: 'The CA found another TXT record at _acme-challenge of the name than the platform’s: the zone answering for it must be the platform’s.' },
};

/**
 * The failure an ACME problem (an answer, or an authorization's or challenge's error object) means; `challenge`,
 * the type of the challenge whose error it is, when it is one.
 */
export function failureOf(problem: AcmeProblem, challenge?: string): OrderFailure {
  // An order's or challenge's error often carries the telling cause in a subproblem (caa, dns, connection).
  const kinds = [problem.kind, ...problem.subproblems.map((p) => p.type.replace(/^urn:ietf:params:acme:error:/, ''))];
  const reasons = challenge === 'dns-01' ? { ...REASONS, ...DNS01_REASONS } : REASONS;
  const known = kinds.map((kind) => reasons[kind]).find((entry) => entry !== undefined);
  const retryAfterMs = problem.retryAfterSeconds !== undefined ? problem.retryAfterSeconds * 1000 : undefined;
  const message = `${known?.hint ?? 'The CA refused the order.'} The CA said: ${problem.describe()}`;
  return { reason: known?.reason ?? 'OrderFailed', message: clip(message), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** A failure that is not the CA's answer: the CA not reached, the bucket failing. */
export function failureOfError(err: unknown, what: string): OrderFailure {
  if (err instanceof AcmeProblem) return failureOf(err);
  return { reason: 'CAUnavailable', message: clip(`${what}: ${err instanceof Error ? err.message : String(err)}. The platform tries again.`) };
}

/** Status messages are bounded (the kind allows 1,024 characters). */
export function clip(text: string): string {
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}
