import type { Registry } from 'prom-client';
import { HostnameReasons, VERIFY_ANNOTATION, type AppHostname, type RequiredDnsRecord } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { ProjectDomainReasons, type ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { MAX_APP_HOSTNAMES, type RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition, statusChanged } from '../../../src/conditions/index.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { UnroutableError } from '../../../src/dns/app-records.ts';
import { isInZone } from '../../../src/dns/names.ts';
import { objectClient, type Informer, type KubeConnection, type KubeObject } from '../../../src/kube/index.ts';
import { DOMAIN_CLAIMS, HOSTNAME_CLAIMS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { ensureHostnameCertificate } from './certificate.ts';
import { NameClaims } from '../name-claims.ts';
import { unansweredRequest } from '../../../src/kube/request-annotation.ts';
import type { DnsSettings } from '../../dns-settings.ts';
import { DomainStore } from '../../../src/platform/domains/domain-store.ts';
import { verifyExternalRecords } from './external-verification.ts';
import {
  challengeToken,
  desiredManagedRecords,
  ensureManagedRecords,
  externalRecords,
  noRuntimeAddresses,
  recordItems,
  recordsApplied,
  removeStaleManagedRecords,
  withChallenge,
} from '../../../src/platform/domains/hostname-records.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { desiredStatus, finalizing, verificationDue, withRecords, type DnsObservation, type Failure, type Observation, type Verdict } from './desired-status.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';

export interface AppHostnameControllerDeps {
  kube: KubeConnection;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  apps: Informer<RuntimeApp>;
  settings: DnsSettings;
  /** Certificates are ordered on this installation: each active hostname gets its TlsCertificate. */
  tls?: boolean;
  registry: Registry;
  log: Logger;
  now?: () => Date;
}

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
  const recheck = { minMs: deps.settings.pendingRecheckMinMs, intervalMs: deps.settings.recheckIntervalMs };
  const certificates = objectClient<TlsCertificate>(deps.kube, TLS_CERTIFICATES);
  const domainClaims = objectClient<DomainClaim>(deps.kube, DOMAIN_CLAIMS);
  const store = new DomainStore(deps.kube, { domains: deps.domains, records: deps.records, hostnames: deps.hostnames });
  // A hostname is claimed when it is activated: several projects may attach one, the first to verify it serves it.
  const claims = new NameClaims(objectClient<HostnameClaim>(deps.kube, HOSTNAME_CLAIMS), 'AppHostname', async (holder, hostname) => {
    const live = await store.hostnameClient.get(holder.namespace, holder.name);
    // Finalizing counts: a holder claims just before it writes `active`, and must not lose the claim in between.
    return live?.metadata?.uid === holder.uid && live.spec.hostname === hostname && (live.status?.state === 'active' || live.spec.finalize === true) && !live.metadata?.deletionTimestamp;
  });
  const inNamespace = (obj: KubeObject, pick: (h: AppHostname) => boolean) =>
    deps.hostnames
      .list(obj.metadata?.namespace)
      .filter((h) => h.metadata?.namespace === obj.metadata?.namespace && pick(h))
      .map((h) => `${h.metadata?.namespace}/${h.metadata?.name}`);

  /** Whether a managed hostname's records are applied to a zone that is what the internet asks. */
  const managedVerdict = (h: AppHostname, namespace: string): Verdict => {
    const hostname = h.spec.hostname;
    const domain = store.activeDomains(namespace).find((d) => d.metadata?.name === h.status?.projectDomain);
    if (!domain)
      return { ok: false, reason: HostnameReasons.DomainGone, message: `The project domain holding ${hostname} was deleted; add it again and repeat the attach request, then finalize again.` };
    if (findCondition(domain.status?.conditions, 'Ready')?.reason === ProjectDomainReasons.DomainTakenOver) {
      return { ok: false, reason: HostnameReasons.DomainNotManaged, message: takenOverMessage(hostname) };
    }
    if (domain.status?.state !== 'managed') {
      // Its zone is not what the internet asks (never delegated, or the re-check demoted it): records in it prove nothing.
      return {
        ok: false,
        reason: HostnameReasons.DomainNotManaged,
        message: `The project domain ${domain.spec.domain} is ${domain.status?.state ?? 'pending_delegation'}: it no longer delegates to its zone. Set its nameservers again and run its delegation check; the hostname is activated once it is managed again.`,
      };
    }
    const desired = unlessUnroutable(() => desiredManagedRecords(h, domain, deps.settings.runtimeTarget));
    if (!desired) return unroutable(hostname);
    const state = recordsApplied(desired, store);
    return state.applied ? { ok: true } : { ok: false, reason: HostnameReasons.RecordsNotApplied, message: `The records of ${hostname} are not applied yet: ${state.message}` };
  };

  /** Whether the records this pass computed for an external hostname, its ownership challenge always among them, are live. */
  const externalVerdict = async (h: AppHostname, dnsRecords: readonly RequiredDnsRecord[]): Promise<Verdict> => {
    const records = withChallenge(dnsRecords, h.spec.hostname, challengeToken(h));
    const result = await verifyExternalRecords(records, deps.settings.resolver, deps.settings.timeoutMs);
    if (result.ok) return { ok: true };
    return {
      ok: false,
      reason: HostnameReasons.RecordsNotFound,
      message: `The DNS records of ${h.spec.hostname} are not live yet: ${result.problems.join('; ')}. Publish them exactly as listed; the platform checks again, and finalize checks at once.`,
    };
  };

  const controller = new Controller<AppHostname>({
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
    // As many as the RuntimeApp controller's: an app's default hostname comes with it (docs/scale.md).
    workers: 8,
    reconcile: async (key, { namespace, name }): Promise<Result> => {
      const h = deps.hostnames.get(key);
      // Gone: the name it may have claimed is free again (an AppHostname is named after its hostname).
      if (!h) return claims.releaseFor(name, { namespace, name });
      if (h.metadata?.deletionTimestamp) return;
      const at = now();
      const { status: computed, requeueAfter } = desiredStatus(h, await observe(h, namespace, at), at, recheck);
      const status = { ...computed, conditions: withStalled('AppHostname', computed.conditions, h.metadata?.generation, at) };
      if (statusChanged(h.status, status)) {
        await store.updateHostnameStatus(h, (live) => (statusChanged(live.status, status) ? status : undefined));
      }
      if (deps.tls && status.state === 'active') await ensureHostnameCertificate(certificates, h);
      return requeueAfter === undefined ? undefined : { requeueAfter };
    },
  });
  return controller;

  /**
   * Brings the hostname's records to what they should be and finds out what the status needs: the app, the
   * records, whether an active hostname is still this project's, and (finalizing) the verification's verdict,
   * the claim taken when it is good.
   */
  async function observe(h: AppHostname, namespace: string, at: Date): Promise<Observation> {
    const app = deps.apps.get(`${namespace}/${h.spec.appRef.name}`);
    const dns = await writeRecords(h, namespace);
    const status = withRecords(h.status, dns);
    const request = verifyRequest(h);
    const holder = { namespace, name: h.metadata?.name ?? '', uid: h.metadata?.uid ?? '' };
    const observation = { appExists: app !== undefined && !app.metadata?.deletionTimestamp, dns, ...(request !== undefined ? { request } : {}) };
    if (status.state === 'active') {
      const lost = await stillServed(h, namespace, holder);
      return { ...observation, ...(lost ? { lost } : {}), lookedUp: false };
    }
    if (!finalizing(h)) return { ...observation, lookedUp: false };
    const managed = h.spec.dnsMode === 'managed_project_domain';
    // No records this pass (the runtime cannot route the name): nothing can be verified, and the status must not
    // stand on records of an earlier pass. Said at every pass, as it costs no look-up.
    if (!managed && dns.kind !== 'external-records') return { ...observation, verdict: unroutable(h.spec.hostname), lookedUp: false };
    if (!verificationDue(h, request, recheck, at)) return { ...observation, lookedUp: false };
    let verdict = managed ? managedVerdict({ ...h, status }, namespace) : await externalVerdict(h, dns.kind === 'external-records' ? dns.dnsRecords : []);
    if (verdict.ok && app && store.servedHostnameCount(app, h.spec.hostname) >= MAX_APP_HOSTNAMES) {
      verdict = {
        ok: false,
        reason: HostnameReasons.TooManyHostnames,
        message: `App ${h.spec.appRef.name} is served on ${MAX_APP_HOSTNAMES} host names besides its default host, the most it can have; deploy with fewer hostnames or detach one.`,
      };
    }
    if (verdict.ok && !(await claimFrom(h.spec.hostname, holder))) {
      verdict = {
        ok: false,
        reason: HostnameReasons.HostnameTaken,
        message: `${h.spec.hostname} is verified and served by another project, whose verification record is still published; it cannot be activated here while it is.`,
      };
    }
    return { ...observation, verdict, lookedUp: !managed };
  }

  /**
   * Claims a hostname whose records this binding just proved live (published, or applied to its project's managed
   * domain, which the internet asks), taking it over from an external binding of another project whose own
   * verification record is no longer published: whoever controls the name's DNS now must not be kept out by a holder
   * that lost that control (a lapsed domain, a former contractor). A holder whose record is still there, or that a
   * look-up could not settle, keeps it.
   */
  async function claimFrom(hostname: string, holder: { namespace: string; name: string; uid: string }): Promise<boolean> {
    const claim = await claims.claim(hostname, holder);
    if (claim.held) return true;
    if (!(await proofGone(claim.holder, hostname))) return false;
    deps.log.info('custom hostname taken over: its holder no longer publishes its verification record', { hostname, from: claim.holder.namespace, to: holder.namespace });
    const taken = await claims.takeOver(hostname, claim.holder.uid, holder);
    // The former holder is told at once (nothing it watches changed), so its status stops saying it serves the name.
    if (taken.held) controller.enqueue(`${claim.holder.namespace}/${claim.holder.name}`);
    return taken.held;
  }

  /**
   * Whether the binding holding `hostname` no longer proves it: an external one no longer publishes its ownership
   * challenge (a definite answer), a managed one's project domain was taken over by another project.
   */
  async function proofGone(holder: { namespace: string; name: string; uid: string }, hostname: string): Promise<boolean> {
    const held = await store.hostnameClient.get(holder.namespace, holder.name);
    if (held?.metadata?.uid !== holder.uid) return false;
    if (held.spec.dnsMode === 'managed_project_domain') return domainTakenOver(holder.namespace, hostname);
    const result = await verifyExternalRecords(withChallenge([], hostname, challengeToken(held)), deps.settings.resolver, deps.settings.timeoutMs);
    return !result.ok && result.inconclusive === undefined;
  }

  /** Managed mode: the platform-owned records written where they belong (stale ones removed); external mode: the records to publish. */
  async function writeRecords(h: AppHostname, namespace: string): Promise<DnsObservation> {
    const hostname = h.spec.hostname;
    if (h.spec.dnsMode === 'managed_project_domain') {
      const { managed: domain, closest: pending } = store.domainsHolding(namespace, hostname);
      if (!domain) return { kind: 'no-managed-domain', ...(pending ? { pendingDomain: pending.spec.domain } : {}) };
      const desired = unlessUnroutable(() => desiredManagedRecords(h, domain, deps.settings.runtimeTarget));
      if (!desired) return { kind: 'no-runtime-target' };
      const records = await ensureManagedRecords(store, desired);
      await removeStaleManagedRecords(store, h, desired);
      return { kind: 'managed-records', projectDomain: domain.metadata?.name ?? '', dnsRecords: recordItems(desired, domain), applied: recordsApplied(records, store) };
    }
    await removeStaleManagedRecords(store, h, []); // a binding switched from managed mode
    const token = challengeToken(h);
    const dnsRecords = unlessUnroutable(() => externalRecords(hostname, deps.settings.runtimeTarget, token));
    return dnsRecords ? { kind: 'external-records', verificationToken: token, dnsRecords } : { kind: 'no-runtime-target' };
  }

  /**
   * An active hostname stays the project's to serve until no project domain with a zone holds a managed
   * hostname any more (the domain was deleted, and may be another project's next, or taken over by another project),
   * or another project holds its claim. A domain briefly pending delegation still holds it. Undefined: still served here.
   */
  async function stillServed(h: AppHostname, namespace: string, holder: { namespace: string; name: string; uid: string }): Promise<Failure | undefined> {
    const hostname = h.spec.hostname;
    const managed = h.spec.dnsMode === 'managed_project_domain';
    if (managed && domainsHolding(namespace, hostname).length === 0) {
      // Not served here any more: the name is free for whoever verifies it next.
      await claims.release(hostname, holder.uid);
      return {
        ok: false,
        reason: HostnameReasons.DomainGone,
        message: `No project domain of this project holds ${hostname} any more, so the app is no longer served on it. Add the domain again; the hostname is activated again once its records are applied.`,
      };
    }
    if (managed && (await domainTakenOver(namespace, hostname))) {
      // Its records are in a zone nobody asks any more: whoever holds the domain now may serve the name.
      await claims.release(hostname, holder.uid);
      return { ok: false, reason: HostnameReasons.DomainNotManaged, message: takenOverMessage(hostname) };
    }
    if ((await claims.claim(hostname, holder)).held) return undefined;
    return { ok: false, reason: HostnameReasons.HostnameTaken, message: `${hostname} is verified and served by another project; it is not served here.` };
  }

  /**
   * Whether every project domain of `namespace` with a zone holding `hostname` lost its DomainClaim to another
   * project (which proved a delegation of the name after theirs lapsed, review-163 F4): read from the claims, the
   * record of who holds a domain. False when the project has none (the caller says so otherwise).
   */
  async function domainTakenOver(namespace: string, hostname: string): Promise<boolean> {
    const holding = domainsHolding(namespace, hostname);
    if (holding.length === 0) return false;
    for (const d of holding) {
      const holder = (await domainClaims.get('', d.spec.domain))?.spec.holder;
      if (!holder || holder.namespace === namespace) return false;
    }
    return true;
  }

  /** The project domains of `namespace` with a zone, not being deleted, whose zone holds `hostname`. */
  function domainsHolding(namespace: string, hostname: string): ProjectDomain[] {
    return store.activeDomains(namespace).filter((d) => d.status?.hostedZoneId && !d.metadata?.deletionTimestamp && isInZone(hostname, d.spec.domain));
  }
}

/** Why a managed hostname is not served once its project domain was taken over (review-163 F4). */
function takenOverMessage(hostname: string): string {
  return `The project domain holding ${hostname} was taken over by another project, to whose zone the parent zone delegates it now, so the app is no longer served on it.`;
}

/** The verdict on a hostname the runtime cannot route (an apex, and no runtime addresses): never activated. */
function unroutable(hostname: string): Failure {
  return { ok: false, reason: HostnameReasons.NoRuntimeTarget, message: noRuntimeAddresses(hostname) };
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
