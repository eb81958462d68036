import { HostnameReasons, type AppHostname, type AppHostnameStatus, type RequiredDnsRecord } from '../../../src/apis/v1alpha1/app-hostname.ts';
import { findCondition, formatTime, setCondition, type ConditionUpdate } from '../../../src/conditions/index.ts';
import { noRuntimeAddresses } from '../../../src/platform/domains/hostname-records.ts';
import { TAKEN_RECHECK_MS } from '../name-claims.ts';
import { backoffCheckIn } from '../project-domain/recheck.ts';

/** A verification's verdict: the records are live and the hostname is this project's, or why not. */
export type Verdict = { readonly ok: true } | Failure;
export interface Failure {
  readonly ok: false;
  readonly reason: string;
  readonly message: string;
}

/** The hostname's records as this pass left them. */
export type DnsObservation =
  /** Managed mode: no managed project domain holds the hostname; `pendingDomain`, the closest one pending delegation. */
  | { readonly kind: 'no-managed-domain'; readonly pendingDomain?: string }
  /** Either mode: an apex hostname, and the runtime has no addresses to point records at. */
  | { readonly kind: 'no-runtime-target' }
  /** Managed mode: the platform-owned records written to `projectDomain`, and whether the zone has them. */
  | {
      readonly kind: 'managed-records';
      readonly projectDomain: string;
      readonly dnsRecords: RequiredDnsRecord[];
      readonly applied: { readonly applied: boolean; readonly reason: string; readonly message: string };
    }
  /** External mode: the records the owner publishes, with the ownership challenge. */
  | { readonly kind: 'external-records'; readonly verificationToken: string; readonly dnsRecords: RequiredDnsRecord[] };

/** What one reconcile found out (and did: records written, claims taken), from which the status follows. */
export interface Observation {
  /** The app exists and is not being deleted. */
  readonly appExists: boolean;
  readonly dns: DnsObservation;
  /** An active hostname no longer this project's to serve (its domain gone, or another project's claim); only looked at when active. */
  readonly lost?: Failure;
  /** The verdict of this pass's verification while finalizing (hostname limit and claim included); none when none was due. */
  readonly verdict?: Verdict;
  /** The external records were looked up through the resolver in this pass. */
  readonly lookedUp: boolean;
  /** The verification request (annotation) this pass answers, if one was waiting. */
  readonly request?: string;
}

/** How often a hostname being finalized in external mode is looked up: from `minMs`, backing off to `intervalMs`. */
export interface Recheck {
  readonly minMs: number;
  readonly intervalMs: number;
}

/** DnsReady reasons that are a verification's verdict (kept on Ready between two look-ups). */
const VERDICT_REASONS: ReadonlySet<string> = new Set([
  HostnameReasons.RecordsNotFound,
  HostnameReasons.RecordsNotApplied,
  HostnameReasons.DomainNotManaged,
  HostnameReasons.DomainGone,
  HostnameReasons.TooManyHostnames,
  HostnameReasons.HostnameTaken,
]);

/** Finalize asked for and not active yet: this pass verifies (when due) and may activate. */
export function finalizing(h: AppHostname): boolean {
  return h.spec.finalize === true && h.status?.state !== 'active';
}

/** The status with this pass's records in it: what verification checks and what is written. */
export function withRecords(status: AppHostnameStatus | undefined, dns: DnsObservation): AppHostnameStatus {
  if (dns.kind === 'managed-records') return { ...status, projectDomain: dns.projectDomain, dnsRecords: dns.dnsRecords };
  if (dns.kind === 'external-records') return { ...status, verificationToken: dns.verificationToken, dnsRecords: dns.dnsRecords };
  return { ...status };
}

/** Milliseconds until an external hostname being finalized is looked up again (0: now), backing off as a pending domain's check does. */
export function externalCheckIn(h: AppHostname, status: AppHostnameStatus | undefined, recheck: Recheck, now: Date): number {
  return backoffCheckIn(h.metadata?.creationTimestamp, status?.lastVerifiedAt, recheck.minMs, recheck.intervalMs, now);
}

/**
 * Whether a hostname being finalized is verified in this pass: managed records whenever they change (a look
 * at the zone costs nothing), external ones when asked (`request`), after another project's claim, or when
 * the schedule says so.
 */
export function verificationDue(h: AppHostname, request: string | undefined, recheck: Recheck, now: Date): boolean {
  const taken = findCondition(h.status?.conditions, 'DnsReady')?.reason === HostnameReasons.HostnameTaken;
  return h.spec.dnsMode === 'managed_project_domain' || request !== undefined || taken || externalCheckIn(h, h.status, recheck, now) === 0;
}

/**
 * What the status of `h` should say, given what the reconcile observed: RuntimeAttached from the app;
 * DnsReady from the records, or the last verdict (verification, a lost domain or claim); Ready summarises;
 * `state` goes active on a good verdict and back to pending when lost. Pure, so the table of cases is tested
 * without a cluster; the reconciler writes the result only when it differs. `requeueAfter` is when to look
 * again at what nothing watched will say (the resolver, another project's claim).
 */
export function desiredStatus(h: AppHostname, o: Observation, now: Date, recheck: Recheck): { status: AppHostnameStatus; requeueAfter?: number } {
  const hostname = h.spec.hostname;
  const appId = h.spec.appRef.name;
  const managed = h.spec.dnsMode === 'managed_project_domain';
  const updates: ConditionUpdate[] = [
    o.appExists
      ? { type: 'RuntimeAttached', status: 'True', reason: HostnameReasons.Attached, message: `The runtime holds ${hostname} for app ${appId}.` }
      : { type: 'RuntimeAttached', status: 'False', reason: HostnameReasons.AppNotFound, message: `App ${appId} does not exist in this project.` },
  ];
  let status = withRecords(h.status, o.dns);
  let dnsReady = false;
  let dnsMessage = '';
  switch (o.dns.kind) {
    case 'no-managed-domain':
      dnsMessage = o.dns.pendingDomain
        ? `The project domain ${o.dns.pendingDomain} is pending_delegation: the records are written once it is managed.`
        : `No project domain of this project holds ${hostname}; add it to write the records.`;
      updates.push({ type: 'DnsReady', status: 'False', reason: HostnameReasons.DomainNotManaged, message: dnsMessage });
      break;
    case 'no-runtime-target':
      // A binding made before the runtime's addresses were removed (the API refuses new ones): said, not retried.
      dnsMessage = noRuntimeAddresses(hostname);
      updates.push({ type: 'DnsReady', status: 'False', reason: HostnameReasons.NoRuntimeTarget, message: dnsMessage });
      break;
    case 'managed-records':
      dnsReady = o.dns.applied.applied;
      dnsMessage = o.dns.applied.message;
      updates.push({ type: 'DnsReady', status: dnsReady ? 'True' : 'False', reason: o.dns.applied.reason, message: dnsMessage });
      break;
    case 'external-records':
      break;
  }

  let verdict: Verdict | undefined;
  let requeueAfter: number | undefined;
  if (status.state === 'active' && o.lost) {
    const { activatedAt: _gone, ...rest } = status;
    status = { ...rest, state: 'pending' };
    verdict = o.lost;
    updates.push({ type: 'DnsReady', status: 'False', reason: o.lost.reason, message: o.lost.message });
  }
  if (finalizing(h)) {
    if (o.lookedUp) status = { ...status, lastVerifiedAt: formatTime(now) };
    verdict = o.verdict;
    if (verdict?.ok) {
      status = { ...status, state: 'active', activatedAt: status.activatedAt ?? formatTime(now) };
      updates.push({ type: 'DnsReady', status: 'True', reason: managed ? HostnameReasons.RecordsApplied : HostnameReasons.RecordsVerified, message: `The DNS records of ${hostname} are live.` });
    } else if (verdict) {
      updates.push({ type: 'DnsReady', status: 'False', reason: verdict.reason, message: verdict.message });
    }
    // A name the runtime cannot route stays so until the operator's settings change, and a restart looks at every
    // hostname: nothing to look up on a schedule.
    if (!managed && !verdict?.ok && verdict?.reason !== HostnameReasons.NoRuntimeTarget) requeueAfter = Math.max(1000, externalCheckIn(h, status, recheck, now));
  }
  // Another project's claim goes away unseen (nothing here watches claims): look again after a while.
  if (verdict && !verdict.ok && verdict.reason === HostnameReasons.HostnameTaken) requeueAfter = TAKEN_RECHECK_MS;
  // Between two look-ups, the last verdict still says what is missing.
  const lastDns = findCondition(h.status?.conditions, 'DnsReady');
  const shown =
    verdict ?? (h.spec.finalize && lastDns?.status === 'False' && VERDICT_REASONS.has(lastDns.reason) ? { ok: false as const, reason: lastDns.reason, message: lastDns.message } : undefined);
  if (o.request !== undefined) status = { ...status, lastHandledVerification: o.request };

  updates.push(
    status.state === 'active'
      ? { type: 'Ready', status: 'True', reason: HostnameReasons.Active, message: `App ${appId} is served on ${hostname}.` }
      : shown && !shown.ok
        ? { type: 'Ready', status: 'False', reason: shown.reason, message: shown.message }
        : managed && !dnsReady
          ? { type: 'Ready', status: 'False', reason: HostnameReasons.DnsNotApplied, message: dnsMessage }
          : h.spec.finalize
            ? { type: 'Ready', status: 'False', reason: HostnameReasons.Verifying, message: `The DNS records of ${hostname} are verified before the app is served on it.` }
            : {
                type: 'Ready',
                status: 'False',
                reason: HostnameReasons.AwaitingFinalize,
                message: `Make the DNS records of ${hostname} live, then finalize (POST …/apps/${appId}/domains/${hostname}/finalize).`,
              },
  );
  // The last word on each condition only: setting one twice in a pass (True, then False) would move its
  // transition time and write the status again every pass.
  let conditions = status.conditions ?? [];
  for (const u of new Map(updates.map((c) => [c.type, c])).values()) conditions = setCondition(conditions, u, h.metadata?.generation, now).conditions;
  const next: AppHostnameStatus = { ...status, state: status.state ?? 'pending', conditions, observedGeneration: h.metadata?.generation };
  return requeueAfter === undefined ? { status: next } : { status: next, requeueAfter };
}
