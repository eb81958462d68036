import type { AppHostname, AppHostnameStatus, HostnameDnsMode } from '../../apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { MAX_APP_HOSTNAMES } from '../../apis/v1alpha1/runtime-app.ts';
import { API_VERSION } from '../../apis/v1alpha1/group-version.ts';
import { HOSTNAME_PATTERN } from '../../apis/v1alpha1/strings.ts';
import { formatTime, setCondition, statusChanged, type ConditionUpdate } from '../../conditions/index.ts';
import { externalAppRecords, isRegistrableDomain, managedAppRecords } from '../../dns/app-records.ts';
import { isInZone, normalizeName } from '../../dns/names.ts';
import { checkExclusivity } from '../../dns/records.ts';
import { BadRequestError, ConflictError, NotFoundError, PublicError } from '../../errors.ts';
import { isAlreadyExists, KubeApiError } from '../../kube/index.ts';
import { isNetworkError } from '../../network-errors.ts';
import type { AppStore } from '../app-store.ts';
import { PROJECT_LABEL } from '../resources.ts';
import type { DnsSettings } from './dns-settings.ts';
import { existingRecords } from './dns-records.ts';
import type { DomainReconciler } from './domain-reconciler.ts';
import type { DomainStore } from './domain-store.ts';
import { verifyExternalRecords } from './external-verification.ts';
import { challengeToken, desiredManagedRecords, ensureManagedRecords, externalRecords, noRuntimeAddresses, recordItems, recordsApplied } from './hostname-records.ts';
import { hostnameView, type HostnameView } from './views.ts';

const HOSTNAME = new RegExp(HOSTNAME_PATTERN);

export interface AttachResult {
  /** 200 when the records are in place (or the owner publishes them), 202 when managed DNS application failed. */
  readonly statusCode: 200 | 202;
  readonly view: HostnameView;
}

/**
 * Custom hostnames of runtime apps. Attaching registers the binding with the runtime control plane first
 * (the AppHostname), then takes care of DNS: in `external_records` mode it answers the records the owner
 * publishes, in `managed_project_domain` mode it writes platform-owned records into the managed project
 * domain holding the hostname. Finalize checks that the records are live, then activates: the app is served
 * on the hostname. Every step is idempotent.
 */
export class AppHostnames {
  readonly #store: DomainStore;
  readonly #apps: AppStore;
  readonly #reconciler: DomainReconciler;
  readonly #settings: DnsSettings;
  readonly #baseDomain: string;
  readonly #now: () => Date;

  constructor(deps: { store: DomainStore; apps: AppStore; reconciler: DomainReconciler; settings: DnsSettings; baseDomain: string; now?: () => Date }) {
    this.#store = deps.store;
    this.#apps = deps.apps;
    this.#reconciler = deps.reconciler;
    this.#settings = deps.settings;
    this.#baseDomain = deps.baseDomain;
    this.#now = deps.now ?? (() => new Date());
  }

  /** The app's hostnames with their state. @throws NotFoundError for a missing app */
  list(project: string, appId: string): HostnameView[] {
    this.#apps.cached(project, appId);
    return this.#store
      .hostnames(project)
      .filter((h) => h.spec.appRef.name === appId)
      .map((h) => this.#view(h))
      .sort((a, b) => a.domain.localeCompare(b.domain));
  }

  /**
   * 409 once the app has {@link MAX_APP_HOSTNAMES} bindings in any state: it can be served on no more, and
   * every binding is bookkeeping its deletion carries (app-deletion.ts writes them all into one annotation).
   */
  #refusePastLimit(project: string, appId: string): void {
    const bound = this.#store.hostnames(project).filter((h) => h.spec.appRef.name === appId).length;
    if (bound >= MAX_APP_HOSTNAMES) {
      throw new ConflictError(`App ${appId} has ${bound} host names attached, the most an app may have (it is served on at most ${MAX_APP_HOSTNAMES}).`);
    }
  }

  async attach(project: string, appId: string, input: { domain: string; dns_mode?: HostnameDnsMode | undefined }): Promise<AttachResult> {
    const app = this.#apps.cached(project, appId);
    const hostname = this.#parseHostname(input.domain);
    const mode = input.dns_mode ?? 'external_records';
    let domain: ProjectDomain | undefined;
    if (mode === 'managed_project_domain') domain = this.#managedDomainFor(project, hostname);
    this.#refuseTaken(project, appId, hostname);
    const existing = this.#store.hostnames(project).find((h) => h.spec.hostname === hostname);
    if (existing && existing.spec.appRef.name !== appId) throw new ConflictError(`${hostname} is already attached to app ${existing.spec.appRef.name} of this project.`);
    if (existing && (existing.spec.dnsMode ?? 'external_records') !== mode) {
      throw new ConflictError(`${hostname} is already attached to this app in ${existing.spec.dnsMode ?? 'external_records'} mode; the existing binding is left as it is.`);
    }
    if (!existing) this.#refusePastLimit(project, appId);
    const types = this.#plannedRecordTypes(hostname, appId, domain);
    if (domain && !existing) this.#refuseManualRecords(domain, hostname, types);

    // The runtime attach: the binding exists before any DNS is touched.
    let binding = existing ?? (await this.#create(project, app.metadata?.uid ?? '', appId, hostname, mode));
    if (!domain) {
      binding = await this.#writeStatus(binding, (s) => {
        const token = challengeToken(binding);
        return {
          status: { ...s, verificationToken: token, dnsRecords: externalRecords(hostname, this.#settings.runtimeTarget, token), state: s.state ?? 'pending' },
          conditions: [
            { type: 'RuntimeAttached', status: 'True', reason: 'Attached', message: `The runtime holds ${hostname} for app ${appId}.` },
            ...(s.state === 'active' ? [] : [pendingExternal(hostname)]),
          ],
        };
      });
      return { statusCode: 200, view: this.#view(binding) };
    }

    const desired = desiredManagedRecords(binding, domain, this.#settings.runtimeTarget);
    let applied: { applied: boolean; reason: string; message: string };
    try {
      const records = await ensureManagedRecords(this.#store, desired);
      const pass = await this.#reconciler.reconcile(this.#store.domain(project, domain.spec.domain));
      applied = pass.failure
        ? { applied: false, reason: 'ProviderError', message: `The records could not be written: ${pass.failure.message} Repeat the request to retry.` }
        : recordsApplied(records, this.#store);
    } catch (err) {
      // The runtime attach stands whatever failed here: the answer is the spec's 202 with status failed, and
      // repeating the request converges. The control plane's own errors are not shown (their text is ours).
      if (err instanceof PublicError) {
        applied = { applied: false, reason: 'RecordsNotWritten', message: `The records could not be written: ${err.message} Repeat the request to retry.` };
      } else if (err instanceof KubeApiError || isNetworkError(err)) {
        applied = { applied: false, reason: 'RecordsNotWritten', message: 'The records could not be written: the control plane did not take them. Repeat the request to retry.' };
      } else {
        throw err;
      }
    }
    const d = domain;
    binding = await this.#writeStatus(binding, (s) => ({
      status: { ...s, projectDomain: d.metadata?.name ?? '', dnsRecords: recordItems(desired, d), state: s.state ?? 'pending' },
      conditions: [
        { type: 'RuntimeAttached', status: 'True', reason: 'Attached', message: `The runtime holds ${hostname} for app ${appId}.` },
        { type: 'DnsReady', status: applied.applied ? 'True' : 'False', reason: applied.reason, message: applied.message },
        ...(s.state === 'active' ? [] : [pendingManaged(hostname, applied.applied, applied.message)]),
      ],
    }));
    return { statusCode: applied.applied ? 200 : 202, view: this.#view(binding) };
  }

  /**
   * Checks that the records are live (external: through the resolver; managed: applied to the zone), then
   * activates the hostname: the app is served on it. 409 with what is missing otherwise; repeatable.
   */
  async finalize(project: string, appId: string, host: string): Promise<HostnameView> {
    this.#apps.cached(project, appId);
    const hostname = normalizeName(host.trim());
    const binding = this.#store.hostnames(project).find((h) => h.spec.hostname === hostname && h.spec.appRef.name === appId);
    if (!binding) throw new NotFoundError(`${hostname} is not attached to app ${appId}; attach it first (POST …/apps/${appId}/domains).`);
    this.#refuseTaken(project, appId, hostname);
    const managed = binding.spec.dnsMode === 'managed_project_domain';
    let problem: { reason: string; message: string } | undefined;
    if (managed) {
      const domain = this.#store.activeDomains(project).find((d) => d.metadata?.name === binding.status?.projectDomain);
      if (!domain) problem = { reason: 'DomainGone', message: `The project domain holding ${hostname} was deleted; add it again and repeat the attach request.` };
      else if (domain.status?.state !== 'managed') {
        // Its zone is no longer what the internet asks (the delegation re-check demoted it): records in it prove nothing.
        problem = {
          reason: 'DomainNotManaged',
          message: `The project domain ${domain.spec.domain} is ${domain.status?.state ?? 'pending_delegation'}: it no longer delegates to its zone. Set its nameservers again and run its delegation check, then finalize again.`,
        };
      } else {
        const pass = await this.#reconciler.reconcile(domain);
        const state = pass.failure
          ? { applied: false, message: `The records could not be written: ${pass.failure.message}` }
          : recordsApplied(desiredManagedRecords(binding, domain, this.#settings.runtimeTarget), this.#store);
        if (!state.applied) problem = { reason: 'RecordsNotApplied', message: `The records of ${hostname} are not applied yet: ${state.message} Repeat the attach request, then finalize again.` };
      }
    } else {
      const result = await verifyExternalRecords(binding.status?.dnsRecords ?? [], this.#settings.resolver, this.#settings.timeoutMs);
      if (!result.ok) problem = { reason: 'RecordsNotFound', message: `The DNS records of ${hostname} are not live yet: ${result.problems.join('; ')}. Publish them exactly as listed, wait for propagation, then finalize again.` };
    }
    if (problem) {
      const p = problem;
      await this.#writeStatus(binding, (s) => ({
        status: s,
        conditions: s.state === 'active' ? [] : [{ type: 'DnsReady', status: 'False', reason: p.reason, message: p.message }],
      }));
      throw new ConflictError(problem.message);
    }
    await this.#apps.update(project, appId, (app) => {
      const hosts = app.spec.hostnames ?? [];
      if (hosts.includes(hostname)) return undefined;
      if (hosts.length >= MAX_APP_HOSTNAMES) {
        throw new ConflictError(`App ${appId} is served on ${hosts.length} host names besides its default host, the most it can have; deploy with fewer hostnames first.`);
      }
      return { ...app.spec, hostnames: [...hosts, hostname] };
    });
    const activated = await this.#writeStatus(binding, (s) => ({
      status: { ...s, state: 'active', activatedAt: s.activatedAt ?? formatTime(this.#now()) },
      conditions: [
        { type: 'DnsReady', status: 'True', reason: managed ? 'RecordsApplied' : 'RecordsVerified', message: `The DNS records of ${hostname} are live.` },
        { type: 'Ready', status: 'True', reason: 'Active', message: `App ${appId} is served on ${hostname}.` },
      ],
    }));
    return this.#view(activated);
  }

  #view(h: AppHostname): HostnameView {
    const domain = this.#store.allDomains(h.metadata?.namespace ?? '').find((d) => d.metadata?.name === h.status?.projectDomain);
    return hostnameView(h, domain?.spec.domain);
  }

  #parseHostname(input: string): string {
    const hostname = normalizeName(input.trim());
    const shown = JSON.stringify(input.length > 64 ? `${input.slice(0, 64)}…` : input);
    if (hostname.length > 253 || !HOSTNAME.test(hostname)) {
      throw new BadRequestError(`domain ${shown} is not a host name (lowercase labels separated by dots, such as www.example.com).`);
    }
    if (isInZone(hostname, this.#baseDomain)) {
      throw new BadRequestError(`${hostname} is under the runtime's domain ${this.#baseDomain}: use the deploy's hostnames option for names there.`);
    }
    return hostname;
  }

  /**
   * The closest `managed` project domain of `project` holding `hostname` (a pending one closer to it is not
   * delegated, so the outer zone answers for the name): 400 when no domain holds it, 409 while none of
   * those that do is managed.
   */
  #managedDomainFor(project: string, hostname: string): ProjectDomain {
    const { managed, closest: pending } = this.#store.domainsHolding(project, hostname);
    if (managed) return managed;
    if (!pending) {
      throw new BadRequestError(`managed_project_domain needs a project domain holding ${hostname}, and project ${project} has none; add the domain first (POST …/domains) or use external_records.`);
    }
    throw new ConflictError(`The project domain ${pending.spec.domain} is pending_delegation; run its delegation check once its nameservers are set, then attach again.`);
  }

  /** 409 when another app serves the hostname or another project verified it (so nobody takes it over). */
  #refuseTaken(project: string, appId: string, hostname: string): void {
    const verified = this.#store.hostnameClaims(hostname).find((h) => h.metadata?.namespace !== project && h.status?.state === 'active');
    if (verified) throw new ConflictError(`${hostname} is verified and served by another project; it cannot be attached here.`);
    const other = this.#apps.all().find((a) => (a.spec.hostnames ?? []).includes(hostname) && !(a.metadata?.namespace === project && a.metadata?.name === appId));
    if (other) throw new ConflictError(`${hostname} is already bound to another app${other.metadata?.namespace === project ? ` (${other.metadata?.name})` : ''}.`);
  }

  /**
   * The types of record `hostname` needs (a CNAME, or A and AAAA at a zone apex), written by the platform
   * in the managed `domain`, else published by the owner; 409 when this installation has nothing to point
   * them at (no runtime addresses for an apex), so no binding is made that could never be routed.
   */
  #plannedRecordTypes(hostname: string, appId: string, domain: ProjectDomain | undefined): string[] {
    const target = this.#settings.runtimeTarget;
    try {
      return domain
        ? managedAppRecords(hostname, domain.spec.domain, appId, target).map((r) => r.type)
        : externalAppRecords(hostname, target).map((r) => r.recordType);
    } catch {
      const apex = domain ? hostname === domain.spec.domain : isRegistrableDomain(hostname);
      throw new ConflictError(apex ? `${noRuntimeAddresses(hostname)} Attach a name under it, such as www.${hostname}.` : `This platform has no runtime DNS target configured to route ${hostname} to.`);
    }
  }

  /** 409 when a record written by hand occupies the hostname's name in the zone with any of `types`. */
  #refuseManualRecords(domain: ProjectDomain, hostname: string, types: readonly string[]): void {
    const manual = this.#store.recordsOf(domain).filter((r) => !r.spec.owner);
    const existing = existingRecords(manual, domain.spec.domain);
    for (const type of types) {
      const clash = checkExclusivity({ fqdn: hostname, type }, existing, domain.spec.domain);
      if (clash) throw new ConflictError(`The platform cannot write the records of ${hostname}: ${clash.message}. Delete that record first.`);
    }
  }

  async #create(project: string, appUid: string, appId: string, hostname: string, mode: HostnameDnsMode): Promise<AppHostname> {
    try {
      const created = await this.#store.hostnameClient.create({
        metadata: {
          name: hostname,
          namespace: project,
          labels: { [PROJECT_LABEL]: project },
          ownerReferences: [{ apiVersion: API_VERSION, kind: 'RuntimeApp', name: appId, uid: appUid }],
        },
        spec: { appRef: { name: appId }, hostname, dnsMode: mode },
      });
      await this.#store.settleObject(this.#store.caches.hostnames, created);
      return created;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      throw new ConflictError(`${hostname} is being attached by another request; retry.`);
    }
  }

  #writeStatus(h: AppHostname, change: (s: AppHostnameStatus) => { status: AppHostnameStatus; conditions: ConditionUpdate[] }): Promise<AppHostname> {
    const now = this.#now();
    return this.#store.updateHostnameStatus(h, (live) => {
      const next = change(live.status ?? {});
      let conditions = next.status.conditions ?? [];
      for (const c of next.conditions) conditions = setCondition(conditions, c, live.metadata?.generation, now).conditions;
      const status = { ...next.status, conditions, observedGeneration: live.metadata?.generation };
      return statusChanged(live.status, status) ? status : undefined;
    });
  }
}

function pendingExternal(hostname: string): ConditionUpdate {
  return { type: 'Ready', status: 'False', reason: 'AwaitingFinalize', message: `Publish the listed DNS records for ${hostname} at your DNS provider, then finalize.` };
}

function pendingManaged(hostname: string, applied: boolean, message: string): ConditionUpdate {
  return applied
    ? { type: 'Ready', status: 'False', reason: 'AwaitingFinalize', message: `The records of ${hostname} are applied; finalize to serve the app on it.` }
    : { type: 'Ready', status: 'False', reason: 'DnsNotApplied', message };
}
