import type { Registry } from 'prom-client';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { ProjectDomainReasons as R, ZONE_FINALIZER, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { DomainClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { objectClient, objectKey, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import { DomainStore, isActive } from '../../../src/platform/domains/domain-store.ts';
import { DOMAIN_CLAIMS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { ensureDomainCertificate } from './certificate.ts';
import { NameClaims, TAKEN_RECHECK_MS } from '../name-claims.ts';
import { DomainReconciler } from './domain-reconciler.ts';
import type { DnsSettings } from '../../dns-settings.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, runFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { controllerRateLimiter } from '../../../src/controller-runtime/rate-limiter.ts';
import { delegationRequest, nextCheckIn, nextPendingCheckIn } from './recheck.ts';
import { ancestorDomains } from '../../../src/platform/domains/domain-admission.ts';
import type { ProjectAccounts } from '../../../src/platform/project-account.ts';

export interface ProjectDomainControllerDeps {
  kube: KubeConnection;
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  hostnames: Informer<AppHostname>;
  settings: DnsSettings;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  now?: () => Date;
  /** How soon a domain another project holds is looked at again (default a minute). */
  takenRecheckMs?: number;
  /** Certificates are ordered on this installation: each managed domain gets one for its apex and wildcard. */
  tls?: boolean;
  /** Whose turn a project's reconciles take (`projectAccount`): one user's projects share one worker. Default: each project its own. */
  accounts?: ProjectAccounts;
}

/**
 * Reconciles at once, and of one account at most one: a delegation check asks servers the tenant's DNS names, which
 * can leave each query unanswered to its timeout (three servers of 3 s each), so one tenant asking checks of many
 * domains again and again held both workers there were, and every other project's records and zones waited behind
 * it (review-163 F6: a record 30 s late behind 24 such domains). Few, as the provider's API is shared and throttled.
 */
const WORKERS = 4;

/** Ready reasons that are good news; every other change of Ready is a Warning. */
const NORMAL: ReadonlySet<string> = new Set([R.Managed, R.PendingDelegation, R.Deleted, R.DelegationPending]);

/** A provider error that retrying will not fix (credentials, limits, a foreign zone) is looked at again this late. */
const STUCK_RETRY_MS = 5 * 60 * 1000;

/**
 * Reconciles ProjectDomains, whether the API or `kubectl apply` made them, and is the only code that talks to
 * the DNS provider and the parent zone for them: claims the name (a DomainClaim), creates the hosted zone
 * (idempotent by the object's uid as caller reference), writes the domain's DnsRecords into it (held while
 * not delegated, deletes always), checks the delegation — at once when asked through the
 * `cloudwright.dev/delegation-check-requested-at` annotation (the API's delegation check sets it), for a
 * pending domain on a schedule that starts at `settings.pendingRecheckMinMs` and grows to
 * `settings.recheckIntervalMs`, for a
 * managed one every `settings.recheckIntervalMs` (back to pending_delegation when the parent zone no longer
 * delegates to the zone) — and on soft delete or `kubectl delete` removes records, zone and claim. A
 * DnsRecord change reconciles its domain: the zone is the unit a change is applied to, so this controller
 * also writes each DnsRecord's Ready condition.
 */
export function projectDomainController(deps: ProjectDomainControllerDeps): Controller<ProjectDomain> {
  const now = deps.now ?? (() => new Date());
  const store = new DomainStore(deps.kube, { domains: deps.domains, records: deps.records, hostnames: deps.hostnames });
  const claims = new NameClaims(objectClient<DomainClaim>(deps.kube, DOMAIN_CLAIMS), 'ProjectDomain', async (holder, domain) => {
    const live = await store.domainClient.get(holder.namespace, holder.name);
    return live?.metadata?.uid === holder.uid && live.spec.domain === domain && isActive(live) && !live.metadata?.deletionTimestamp;
  });
  const certificates = objectClient<TlsCertificate>(deps.kube, TLS_CERTIFICATES);
  const reconciler = new DomainReconciler(store, claims, deps.settings, certificates, now);
  const interval = deps.settings.recheckIntervalMs;
  /**
   * When each domain's zone last failed to be created for a reason retrying will not fix (credentials,
   * limits), for the spec it had then. Until {@link STUCK_RETRY_MS} later the provider is not asked again,
   * whatever event reconciles the domain meanwhile (the failure's own status write); a new spec is asked at
   * once. A domain whose zone exists is never held: a record the provider rejected and its owner then fixed
   * is written at once. In memory: a restarted operator asks once more, then waits again.
   */
  const stuckSince = new Map<string, { readonly uid: string | undefined; readonly generation: number | undefined; readonly at: number }>();
  const stuckWaitLeft = (key: string, domain: ProjectDomain): number => {
    const stuck = stuckSince.get(key);
    if (!stuck || domain.status?.hostedZoneId || stuck.uid !== domain.metadata?.uid || stuck.generation !== domain.metadata?.generation) return 0;
    return Math.max(0, stuck.at + STUCK_RETRY_MS - now().getTime());
  };

  const controller = new Controller<ProjectDomain>({
    name: 'projectdomain',
    kind: 'ProjectDomain',
    source: deps.domains,
    owns: [{ kind: 'DnsRecord', source: deps.records, mapToOwner: (r) => recordDomainKeys(r as DnsRecord) }],
    registry: deps.registry,
    log: deps.log,
    workers: WORKERS,
    workersPerNamespace: 1,
    ...(deps.accounts ? { namespaceGroup: (namespace: string) => deps.accounts!.of(namespace), caches: [deps.accounts] } : {}),
    rateLimiter: controllerRateLimiter<string>({ baseMs: 500, maxMs: 60_000 }),
    reconcile: async (key, { namespace, name, log }): Promise<Result> => {
      let domain = deps.domains.get(key);
      if (!domain) {
        stuckSince.delete(key);
        // Its records, deleted with it by the garbage collector, have no zone left to leave.
        await reconciler.releaseDeletedRecords({ metadata: { namespace, name } });
        return;
      }
      if (await runFinalizer(store.domainClient, domain, ZONE_FINALIZER, (d) => reconciler.retire(d).then(() => undefined))) return;
      if (domain.spec.deleted) {
        if (domain.status?.state !== 'deleted' || domain.metadata?.finalizers?.includes(ZONE_FINALIZER)) await report(domain, await reconciler.retire(domain));
        // Records deleted with it whose finalizer a lost race left behind: no zone is left to leave.
        if (domain.status?.state === 'deleted') await reconciler.releaseDeletedRecords(domain);
        await reconciler.pruneHistory(namespace);
        return;
      }
      domain = await addFinalizer(store.domainClient, domain, ZONE_FINALIZER);
      const request = delegationRequest(domain);
      const stuck = stuckWaitLeft(key, domain);
      // A stuck zone still answers a delegation-check request (with the failure), so the asker is not left waiting.
      if (stuck > 0 && request === undefined) return { requeueAfter: stuck };
      const checkIn = (d: ProjectDomain) =>
        d.status?.state === 'managed'
          ? nextCheckIn(d.status.lastCheckedAt, interval, now())
          : d.status?.hostedZoneId
            ? nextPendingCheckIn(d, deps.settings.pendingRecheckMinMs, interval, now())
            : undefined;
      const due = request !== undefined || checkIn(domain) === 0;
      const pass = await reconciler.reconcile(domain, { checkDelegation: due, ...(request !== undefined ? { answersRequest: request } : {}) });
      await report(domain, pass.domain);
      if (domain.status?.delegatedAt === undefined && pass.domain.status?.delegatedAt !== undefined) lookAgainAround(pass.domain);
      // The former holder says at once that it lost the name (nothing it watches changed).
      if (pass.tookOverFrom) controller.enqueue(`${pass.tookOverFrom.namespace}/${pass.tookOverFrom.name}`);
      stuckSince.delete(key);
      if (deps.tls && pass.domain.status?.state === 'managed') await ensureDomainCertificate(certificates, pass.domain);
      if (pass.failure) {
        log.warn('DNS provider failed', { code: pass.failure.code, op: pass.failure.op, providerCode: pass.failure.providerCode });
        if (pass.failure.retryable) throw pass.failure;
        stuckSince.set(key, { uid: domain.metadata?.uid, generation: domain.metadata?.generation, at: now().getTime() });
        return { requeueAfter: STUCK_RETRY_MS };
      }
      // Another project's domain going away enqueues only that one: look again after a while. Likewise a domain
      // past the project's limit, once an older one goes, and one under another project's domain.
      const reason = findCondition(pass.domain.status?.conditions, 'Ready')?.reason;
      if (reason === R.DomainTaken || reason === R.DomainTakenOver || reason === R.TooManyDomains || reason === R.UnderAnotherProject) return { requeueAfter: deps.takenRecheckMs ?? TAKEN_RECHECK_MS };
      const next = checkIn(pass.domain);
      return next === undefined ? undefined : { requeueAfter: Math.max(1000, next) };
    },
  });
  return controller;

  /**
   * A domain that just proved its delegation decides against the other projects' domains of its name, above it and
   * inside it that never proved theirs: they are looked at now rather than at their next scheduled check.
   */
  function lookAgainAround(proved: ProjectDomain): void {
    const name = proved.spec.domain;
    // Its name's other domains, challengers refused meanwhile among them (not holders: DomainTaken), lose theirs now.
    const sameName = store.domainsNamed(name).filter(isActive);
    const around = [...sameName, ...ancestorDomains(name).flatMap((n) => store.holders(n)), ...store.holdersBelow(name)];
    for (const d of around) if (d.metadata?.uid !== proved.metadata?.uid) controller.enqueue(objectKey(d));
  }

  /** An Event when Ready changes (after the status write, so a restart that writes nothing records nothing). */
  async function report(before: ProjectDomain, after: ProjectDomain): Promise<void> {
    const was = findCondition(before.status?.conditions, 'Ready');
    const is = findCondition(after.status?.conditions, 'Ready');
    if (!is || (was?.status === is.status && was.reason === is.reason)) return;
    void deps.events.event(after, NORMAL.has(is.reason) ? 'Normal' : 'Warning', is.reason, is.message);
  }
}

/** A DnsRecord reconciles the ProjectDomain it names. */
function recordDomainKeys(record: DnsRecord | KubeObject): string[] {
  const namespace = record.metadata?.namespace;
  const name = (record as DnsRecord).spec?.domainRef?.name;
  return namespace && name ? [`${namespace}/${name}`] : [];
}
