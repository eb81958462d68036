import type { Registry } from 'prom-client';
import { HostnameReasons, VERIFY_ANNOTATION, type AppHostname, type AppHostnameStatus } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { MAX_APP_HOSTNAMES, type RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, formatTime, setCondition, statusChanged, type ConditionUpdate } from '../../../src/conditions/index.ts';
import type { HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { UnroutableError } from '../../../src/dns/app-records.ts';
import { isInZone } from '../../../src/dns/names.ts';
import { objectClient, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import { HOSTNAME_CLAIMS } from '../../../src/platform/resources.ts';
import { NameClaims, TAKEN_RECHECK_MS } from '../name-claims.ts';
import { unansweredRequest } from '../request-annotation.ts';
import type { DnsSettings } from '../../../src/platform/domains/dns-settings.ts';
import { DomainStore } from '../../../src/platform/domains/domain-store.ts';
import { verifyExternalRecords } from '../../../src/platform/domains/external-verification.ts';
import {
  challengeToken,
  desiredManagedRecords,
  ensureManagedRecords,
  externalRecords,
  noRuntimeAddresses,
  recordItems,
  recordsApplied,
  removeStaleManagedRecords,
} from '../../../src/platform/domains/hostname-records.ts';
import { Controller, type Result } from '../../controller-runtime/controller.ts';
import type { Logger } from '../../controller-runtime/log.ts';
import { backoffCheckIn } from '../project-domain/recheck.ts';

export interface AppHostnameControllerDeps {
  kube: KubeConnection;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  apps: Informer<RuntimeApp>;
  settings: DnsSettings;
  registry: Registry;
  log: Logger;
  now?: () => Date;
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

/** Verdict of a finalize verification: the records are live, or why not. */
type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly message: string };

/**
 * Reconciles AppHostnames, whether the API or `kubectl apply` made them, and is the only code that verifies
 * and activates them: RuntimeAttached says whether the app exists; in managed mode the platform-owned
 * DnsRecords are kept as they should be in the managed project domain holding the hostname and DnsReady
 * follows them; in external mode the records to publish (with the ownership challenge) are in the status.
 * With `spec.finalize` the records are verified (external: through the resolver, at once when asked through
 * {@link VERIFY_ANNOTATION}, else on a schedule that backs off from `settings.pendingRecheckMinMs` to the
 * re-check interval; managed: applied to a managed zone, whenever they change) and the hostname activated:
 * from then on cw-runtime serves the app on it (it reads active AppHostnames; nothing writes the app's spec).
 */
export function appHostnameController(deps: AppHostnameControllerDeps): Controller<AppHostname> {
  const now = deps.now ?? (() => new Date());
  const store = new DomainStore(deps.kube, { domains: deps.domains, records: deps.records, hostnames: deps.hostnames });
  // A hostname is claimed when it is activated: several projects may attach one, the first to verify it serves it.
  const claims = new NameClaims(objectClient<HostnameClaim>(deps.kube, HOSTNAME_CLAIMS), 'AppHostname', async (holder, hostname) => {
    const live = await store.hostnameClient.get(holder.namespace, holder.name);
    // Finalizing counts: a holder claims just before it writes `active`, and must not lose the claim in between.
    return live?.metadata?.uid === holder.uid && live.spec.hostname === hostname && (live.status?.state === 'active' || live.spec.finalize === true) && !live.metadata?.deletionTimestamp;
  });
  const inNamespace = (obj: KubeObject, pick: (h: AppHostname) => boolean) =>
    deps.hostnames
      .list()
      .filter((h) => h.metadata?.namespace === obj.metadata?.namespace && pick(h))
      .map((h) => `${h.metadata?.namespace}/${h.metadata?.name}`);

  /** Whether a managed hostname's records are applied to a zone that is what the internet asks. */
  const managedVerdict = (h: AppHostname, namespace: string): Verdict => {
    const hostname = h.spec.hostname;
    const domain = store.activeDomains(namespace).find((d) => d.metadata?.name === h.status?.projectDomain);
    if (!domain)
      return { ok: false, reason: HostnameReasons.DomainGone, message: `The project domain holding ${hostname} was deleted; add it again and repeat the attach request, then finalize again.` };
    if (domain.status?.state !== 'managed') {
      // Its zone is not what the internet asks (never delegated, or the re-check demoted it): records in it prove nothing.
      return {
        ok: false,
        reason: HostnameReasons.DomainNotManaged,
        message: `The project domain ${domain.spec.domain} is ${domain.status?.state ?? 'pending_delegation'}: it no longer delegates to its zone. Set its nameservers again and run its delegation check; the hostname is activated once it is managed again.`,
      };
    }
    const desired = unlessUnroutable(() => desiredManagedRecords(h, domain, deps.settings.runtimeTarget));
    if (!desired) return { ok: false, reason: HostnameReasons.NoRuntimeTarget, message: noRuntimeAddresses(hostname) };
    const state = recordsApplied(desired, store);
    return state.applied ? { ok: true } : { ok: false, reason: HostnameReasons.RecordsNotApplied, message: `The records of ${hostname} are not applied yet: ${state.message}` };
  };

  const externalVerdict = async (h: AppHostname): Promise<Verdict> => {
    const result = await verifyExternalRecords(h.status?.dnsRecords ?? [], deps.settings.resolver, deps.settings.timeoutMs);
    if (result.ok) return { ok: true };
    return {
      ok: false,
      reason: HostnameReasons.RecordsNotFound,
      message: `The DNS records of ${h.spec.hostname} are not live yet: ${result.problems.join('; ')}. Publish them exactly as listed; the platform checks again, and finalize checks at once.`,
    };
  };

  return new Controller<AppHostname>({
    name: 'apphostname',
    kind: 'AppHostname',
    source: deps.hostnames,
    owns: [
      { kind: 'DnsRecord', source: deps.records },
      { kind: 'RuntimeApp', source: deps.apps, mapToOwner: (app) => inNamespace(app, (h) => h.spec.appRef.name === app.metadata?.name) },
      { kind: 'ProjectDomain', source: deps.domains, mapToOwner: (d) => inNamespace(d, (h) => h.spec.dnsMode === 'managed_project_domain') },
    ],
    registry: deps.registry,
    log: deps.log,
    workers: 2,
    reconcile: async (key, { namespace, name }): Promise<Result> => {
      const h = deps.hostnames.get(key);
      // Gone: the name it may have claimed is free again (an AppHostname is named after its hostname).
      if (!h) return claims.releaseFor(name, { namespace, name });
      if (h.metadata?.deletionTimestamp) return;
      const hostname = h.spec.hostname;
      const appId = h.spec.appRef.name;
      const managed = h.spec.dnsMode === 'managed_project_domain';
      const app = deps.apps.get(`${namespace}/${appId}`);
      const updates: ConditionUpdate[] = [
        app && !app.metadata?.deletionTimestamp
          ? { type: 'RuntimeAttached', status: 'True', reason: HostnameReasons.Attached, message: `The runtime holds ${hostname} for app ${appId}.` }
          : { type: 'RuntimeAttached', status: 'False', reason: HostnameReasons.AppNotFound, message: `App ${appId} does not exist in this project.` },
      ];
      let status: AppHostnameStatus = { ...h.status };
      let dnsReady = false;
      let dnsMessage = '';
      if (managed) {
        const { managed: domain, closest: pending } = store.domainsHolding(namespace, hostname);
        const desired = domain && unlessUnroutable(() => desiredManagedRecords(h, domain, deps.settings.runtimeTarget));
        if (!domain) {
          dnsMessage = pending
            ? `The project domain ${pending.spec.domain} is pending_delegation: the records are written once it is managed.`
            : `No project domain of this project holds ${hostname}; add it to write the records.`;
          updates.push({ type: 'DnsReady', status: 'False', reason: HostnameReasons.DomainNotManaged, message: dnsMessage });
        } else if (!desired) {
          dnsMessage = noRuntimeAddresses(hostname);
          updates.push({ type: 'DnsReady', status: 'False', reason: HostnameReasons.NoRuntimeTarget, message: dnsMessage });
        } else {
          const records = await ensureManagedRecords(store, desired);
          await removeStaleManagedRecords(store, h, desired);
          const applied = recordsApplied(records, store);
          dnsReady = applied.applied;
          dnsMessage = applied.message;
          status = { ...status, projectDomain: domain.metadata?.name ?? '', dnsRecords: recordItems(desired, domain) };
          updates.push({ type: 'DnsReady', status: applied.applied ? 'True' : 'False', reason: applied.reason, message: applied.message });
        }
      } else {
        await removeStaleManagedRecords(store, h, []); // a binding switched from managed mode
        const token = challengeToken(h);
        const dnsRecords = unlessUnroutable(() => externalRecords(hostname, deps.settings.runtimeTarget, token));
        // A binding made before the runtime's addresses were removed (the API refuses new ones): said, not retried.
        if (dnsRecords) status = { ...status, verificationToken: token, dnsRecords };
        else updates.push({ type: 'DnsReady', status: 'False', reason: HostnameReasons.NoRuntimeTarget, message: noRuntimeAddresses(hostname) });
      }

      // Active: still the project's to serve? Not once no project domain with a zone holds a managed hostname
      // any more (the domain was deleted, and may be another project's next), nor once another project holds
      // its claim. A domain briefly pending delegation still holds it.
      const request = verifyRequest(h);
      let verdict: Verdict | undefined;
      let requeueAfter: number | undefined;
      if (status.state === 'active') {
        const lost: Verdict | undefined =
          managed && !store.activeDomains(namespace).some((d) => d.status?.hostedZoneId && !d.metadata?.deletionTimestamp && isInZone(hostname, d.spec.domain))
            ? {
                ok: false,
                reason: HostnameReasons.DomainGone,
                message: `No project domain of this project holds ${hostname} any more, so the app is no longer served on it. Add the domain again; the hostname is activated again once its records are applied.`,
              }
            : (await claims.claim(hostname, { namespace, name: h.metadata?.name ?? '', uid: h.metadata?.uid ?? '' })).held
              ? undefined
              : { ok: false, reason: HostnameReasons.HostnameTaken, message: `${hostname} is verified and served by another project; it is not served here.` };
        if (lost) {
          // Not served here any more: the name is free for whoever verifies it next.
          if (lost.reason === HostnameReasons.DomainGone) await claims.release(hostname, h.metadata?.uid ?? '');
          const { activatedAt: _gone, ...rest } = status;
          status = { ...rest, state: 'pending' };
          verdict = lost;
          updates.push({ type: 'DnsReady', status: 'False', reason: lost.reason, message: lost.message });
        }
      }

      // Finalize: verify, then activate. External records are looked up when asked or when the schedule says so.
      if (h.spec.finalize && status.state !== 'active' && !verdict) {
        const taken = findCondition(h.status?.conditions, 'DnsReady')?.reason === HostnameReasons.HostnameTaken;
        const due = managed || request !== undefined || taken || externalCheckIn(status, h, now()) === 0;
        if (due) {
          verdict = managed ? managedVerdict({ ...h, status }, namespace) : await externalVerdict({ ...h, status });
          if (!managed) status = { ...status, lastVerifiedAt: formatTime(now()) };
        }
        if (verdict?.ok && app && store.servedHostnameCount(app, hostname) >= MAX_APP_HOSTNAMES) {
          verdict = {
            ok: false,
            reason: HostnameReasons.TooManyHostnames,
            message: `App ${appId} is served on ${MAX_APP_HOSTNAMES} host names besides its default host, the most it can have; deploy with fewer hostnames or detach one.`,
          };
        }
        if (verdict?.ok) {
          const claim = await claims.claim(hostname, { namespace, name: h.metadata?.name ?? '', uid: h.metadata?.uid ?? '' });
          if (!claim.held) verdict = { ok: false, reason: HostnameReasons.HostnameTaken, message: `${hostname} is verified and served by another project; it cannot be activated here.` };
        }
        if (verdict?.ok) {
          status = { ...status, state: 'active', activatedAt: status.activatedAt ?? formatTime(now()) };
          updates.push({ type: 'DnsReady', status: 'True', reason: managed ? HostnameReasons.RecordsApplied : HostnameReasons.RecordsVerified, message: `The DNS records of ${hostname} are live.` });
        } else if (verdict) {
          updates.push({ type: 'DnsReady', status: 'False', reason: verdict.reason, message: verdict.message });
        }
        if (!managed && !verdict?.ok) requeueAfter = Math.max(1000, externalCheckIn(status, h, now()));
      }
      // Another project's claim goes away unseen (nothing here watches claims): look again after a while.
      if (verdict && !verdict.ok && verdict.reason === HostnameReasons.HostnameTaken) requeueAfter = TAKEN_RECHECK_MS;
      // Between two look-ups, the last verdict still says what is missing.
      const lastDns = findCondition(h.status?.conditions, 'DnsReady');
      const shown =
        verdict ?? (h.spec.finalize && lastDns?.status === 'False' && VERDICT_REASONS.has(lastDns.reason) ? { ok: false as const, reason: lastDns.reason, message: lastDns.message } : undefined);
      if (request !== undefined) status = { ...status, lastHandledVerification: request };

      const active = status.state === 'active';
      updates.push(
        active
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
      for (const u of new Map(updates.map((c) => [c.type, c])).values()) conditions = setCondition(conditions, u, h.metadata?.generation, now()).conditions;
      const next: AppHostnameStatus = { ...status, state: status.state ?? 'pending', conditions, observedGeneration: h.metadata?.generation };
      if (statusChanged(h.status, next)) {
        await store.updateHostnameStatus(h, (live) => (statusChanged(live.status, next) ? next : undefined));
      }
      return requeueAfter === undefined ? undefined : { requeueAfter };
    },
  });

  /** When an external hostname being finalized is looked up again: backing off as a pending domain's check does. */
  function externalCheckIn(status: AppHostnameStatus, h: AppHostname, at: Date): number {
    return backoffCheckIn(h.metadata?.creationTimestamp, status.lastVerifiedAt, deps.settings.pendingRecheckMinMs, deps.settings.recheckIntervalMs, at);
  }
}

/** The verification request not answered yet, if any (see {@link VERIFY_ANNOTATION}). */
function verifyRequest(h: AppHostname): string | undefined {
  return unansweredRequest(h, VERIFY_ANNOTATION, h.status?.lastHandledVerification);
}

/** The records, or `undefined` when the runtime target cannot route them (an apex without addresses). */
function unlessUnroutable<T>(records: () => T): T | undefined {
  try {
    return records();
  } catch (err) {
    if (err instanceof UnroutableError) return undefined;
    throw err;
  }
}
