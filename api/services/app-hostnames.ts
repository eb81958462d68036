import { randomBytes } from 'node:crypto';
import { refuseDeleteOfApplied, refusePatchAppliedElsewhere } from '../../src/platform/applied-elsewhere.ts';
import { namespaceRefusal } from '../../src/platform/namespace-refusal.ts';
import { VERIFY_ANNOTATION, type AppHostname, type HostnameDnsMode } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import { MAX_APP_HOSTNAMES } from '../../src/apis/v1alpha1/runtime-app.ts';
import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import { HOSTNAME_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { findCondition } from '../../src/conditions/index.ts';
import { externalAppRecords, isRegistrableDomain, managedAppRecords, UnroutableError } from '../../src/dns/app-records.ts';
import { isInZone, normalizeName } from '../../src/dns/names.ts';
import { checkExclusivity } from '../../src/dns/records.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../src/errors.ts';
import { isAlreadyExists, isConflict, objectKey, waitFor, waitForAnswer, type KubeObject } from '../../src/kube/index.ts';
import type { AppStore } from '../../src/platform/app-store.ts';
import { PROJECT_LABEL } from '../../src/platform/resources.ts';
import { CONTROLLER_ANSWER_MS } from '../../src/platform/domains/controller-answer.ts';
import type { RuntimeTarget } from '../../src/dns/app-records.ts';
import { existingRecords, MAX_RECORDS_PER_DOMAIN } from '../../src/platform/domains/dns-records.ts';
import type { DomainStore } from '../../src/platform/domains/domain-store.ts';
import { controllerUid, noRuntimeAddresses } from '../../src/platform/domains/hostname-records.ts';
import type { TlsCertificates } from '../../src/platform/domains/tls-certificates.ts';
import { tlsView } from '../../src/platform/domains/tls-view.ts';
import { hostnameView, managedDnsStatus, type HostnameView } from '../../src/platform/domains/views.ts';

const HOSTNAME = new RegExp(HOSTNAME_PATTERN);

export interface AttachResult {
  /**
   * 200 when the controller has answered: the records to publish (external), or the records in place
   * (managed). 202 when it has not within the bound (the binding stands, `pending`) or writing the records
   * failed (`managed_dns.status: failed`).
   */
  readonly statusCode: 200 | 202;
  readonly view: HostnameView;
}

export interface DetachResult {
  /** The binding and its platform-owned records are gone (within the bound). */
  readonly gone: boolean;
  readonly view: HostnameView;
}

export interface FinalizeResult {
  /** 200 once active, 202 when the verification has not answered within the bound (it carries on). */
  readonly statusCode: 200 | 202;
  readonly view: HostnameView;
}

/**
 * Custom hostnames of runtime apps, for the REST routes. Each request writes intent on the AppHostname and
 * waits (watching it, at most `answerWithinMs`) for the AppHostname controller's answer in its status.
 * Attaching creates the binding (the runtime attach); the controller then answers the records the owner
 * publishes (`external_records`) or writes platform-owned records into the managed project domain holding
 * the hostname (`managed_project_domain`). Finalize sets `spec.finalize` and asks for a verification now
 * ({@link VERIFY_ANNOTATION}): the controller checks that the records are live, then activates the hostname
 * (the app is served on it). Every step is idempotent.
 */
export class AppHostnames {
  readonly #store: DomainStore;
  readonly #certificates: TlsCertificates;
  readonly #apps: AppStore;
  readonly #settings: { readonly runtimeTarget: RuntimeTarget };
  readonly #baseDomain: string;
  readonly #answerWithinMs: number;

  /** `settings.runtimeTarget` is read at each attach: where app hostname records point. */
  constructor(deps: {
    store: DomainStore;
    certificates: TlsCertificates;
    apps: AppStore;
    settings: { readonly runtimeTarget: RuntimeTarget };
    baseDomain: string;
    answerWithinMs?: number | undefined;
  }) {
    this.#store = deps.store;
    this.#certificates = deps.certificates;
    this.#apps = deps.apps;
    this.#settings = deps.settings;
    this.#baseDomain = deps.baseDomain;
    this.#answerWithinMs = deps.answerWithinMs ?? CONTROLLER_ANSWER_MS;
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
    if (domain && !existing) {
      this.#refuseManualRecords(domain, hostname, types);
      const count = this.#store.recordsOf(domain).length;
      if (count + types.length > MAX_RECORDS_PER_DOMAIN) {
        throw new ConflictError(`${domain.spec.domain} has ${count} records; the ${types.length} of ${hostname} would pass the ${MAX_RECORDS_PER_DOMAIN} a domain may have. Delete some first.`);
      }
    }

    // The runtime attach: the binding exists before any DNS is touched.
    const binding = existing ?? (await this.#create(project, app.metadata?.uid ?? '', appId, hostname, mode));
    const observed = (h: AppHostname) => (h.status?.observedGeneration ?? 0) >= (binding.metadata?.generation ?? 0);
    if (!domain) {
      // The records to publish, or the controller's word on why there are none.
      const answers = (h: AppHostname) => h.status?.dnsRecords !== undefined || findCondition(h.status?.conditions, 'DnsReady') !== undefined;
      const answered = await this.#answer(binding, answers);
      return { statusCode: observed(answered) && answers(answered) ? 200 : 202, view: this.#view(answered) };
    }
    // Applied (True), or refused for a reason repeating the attach may mend; a first write is waited for. A
    // repeat of an attach that failed waits for the records to be applied: the controllers keep retrying
    // them, and the repeat answers what they achieved within the bound. Past the bound the binding is
    // answered as it stands (202): `pending` while the records are on their way, `failed` only when the
    // controller said so.
    const failedBefore = existing !== undefined && managedDnsStatus(existing) === 'failed';
    const answered = await this.#answer(binding, (h) => {
      const dns = managedDnsStatus(h);
      return failedBefore ? dns === 'applied' || h.status?.state === 'active' : dns !== 'pending';
    });
    const applied = observed(answered) && (managedDnsStatus(answered) === 'applied' || answered.status?.state === 'active');
    return { statusCode: applied ? 200 : 202, view: this.#view(answered) };
  }

  /**
   * Sets the binding's finalize intent and asks for its records to be verified now; answers once the
   * controller has: 200 when the hostname is active (the app is served on it), 409 saying what is missing
   * (the controller keeps re-checking and activates it by itself once the records are live), 202 when the
   * verification has not answered within the bound. Repeatable.
   */
  async finalize(project: string, appId: string, host: string): Promise<FinalizeResult> {
    this.#apps.cached(project, appId);
    const hostname = normalizeName(host.trim());
    const binding = this.#store.hostnames(project).find((h) => h.spec.hostname === hostname && h.spec.appRef.name === appId);
    if (!binding) throw new NotFoundError(`${hostname} is not attached to app ${appId}; attach it first (POST …/apps/${appId}/domains).`);
    this.#refuseTaken(project, appId, hostname);
    if (binding.status?.state === 'active') return { statusCode: 200, view: this.#view(binding) };
    this.#refuseServedPastLimit(project, appId, hostname);
    const request = `${new Date().toISOString()}-${randomBytes(4).toString('hex')}`;
    const patch = { metadata: { annotations: { [VERIFY_ANNOTATION]: request } }, spec: { finalize: true } };
    // Read live: the cache keeps no managedFields, and git declaring `finalize: false` would undo this.
    const live = await this.#store.hostnameClient.get(project, binding.metadata?.name ?? '');
    if (live) refusePatchAppliedElsewhere(live, patch);
    const asked = await this.#store.hostnameClient.patch(project, binding.metadata?.name ?? '', patch);
    const answered = await this.#answer(asked, (h) => h.status?.state === 'active' || h.status?.lastHandledVerification === request);
    if (answered.status?.state === 'active') return { statusCode: 200, view: this.#view(answered) };
    if (answered.status?.lastHandledVerification !== request) return { statusCode: 202, view: this.#view(answered) };
    const ready = findCondition(answered.status?.conditions, 'Ready');
    const dns = findCondition(answered.status?.conditions, 'DnsReady');
    const why = dns?.status === 'False' ? dns.message : (ready?.message ?? `The DNS records of ${hostname} are not verified yet.`);
    throw new ConflictError(why);
  }

  /**
   * Detaches `host` from the app by deleting its AppHostname, as `kubectl delete` would: the app is no longer
   * served on it (cw-runtime serves active bindings only), the garbage collector deletes the platform-owned
   * records it owns (each leaves the zone before it goes: its finalizer) and the controller releases the
   * name's HostnameClaim. Waits, watching and at most the bound, for the binding and those records to be
   * gone: `gone`, else the binding as it stands, `deleting` (the deletion carries on). Records the owner
   * published at their own DNS provider are theirs to remove.
   * @throws NotFoundError for a missing app, or a host name not attached to it
   */
  async detach(project: string, appId: string, host: string): Promise<DetachResult> {
    this.#apps.cached(project, appId);
    const hostname = normalizeName(host.trim());
    const binding = this.#store.hostnames(project).find((h) => h.spec.hostname === hostname && h.spec.appRef.name === appId);
    if (!binding) throw new NotFoundError(`${hostname} is not attached to app ${appId}.`);
    const { name = '', uid } = binding.metadata ?? {};
    const owned = this.#store.caches.records.list(project).filter((r) => r.metadata?.namespace === project && controllerUid(r) === uid);
    await refuseDeleteOfApplied(this.#store.hostnameClient, project, name, uid);
    try {
      await this.#store.hostnameClient.delete(project, name, { preconditions: { uid } });
    } catch (err) {
      // Deleted and attached again meanwhile: this incarnation is gone, the new one is not ours to delete.
      if (!isConflict(err)) throw err;
    }
    const deadline = Date.now() + this.#answerWithinMs;
    let gone = true;
    for (const [cache, obj] of [[this.#store.caches.hostnames, binding], ...owned.map((r) => [this.#store.caches.records, r] as const)] as const) {
      const { met } = await waitFor<KubeObject>(cache, objectKey(obj), (o) => o?.metadata?.uid !== obj.metadata?.uid, Math.max(0, deadline - Date.now()));
      gone &&= met;
    }
    const view = this.#view(binding);
    return gone ? { gone, view } : { gone, view: { ...view, status: 'deleting', status_reason: 'Deleting', status_message: `${hostname} is detached from ${appId}; its records are being removed.` } };
  }

  /** 409 when the app is already served on as many host names as it may have (deploy host names and active bindings). */
  #refuseServedPastLimit(project: string, appId: string, hostname: string): void {
    const served = this.#store.servedHostnameCount(this.#apps.cached(project, appId), hostname);
    if (served >= MAX_APP_HOSTNAMES) {
      throw new ConflictError(`App ${appId} is served on ${served} host names besides its default host, the most it can have; deploy with fewer hostnames first.`);
    }
  }

  #answer(written: AppHostname, answers: (h: AppHostname) => boolean): Promise<AppHostname> {
    return waitForAnswer(this.#store.caches.hostnames, written, answers, this.#answerWithinMs);
  }

  #view(h: AppHostname): HostnameView {
    const domain = this.#store.allDomains(h.metadata?.namespace ?? '').find((d) => d.metadata?.name === h.status?.projectDomain);
    return hostnameView(h, tlsView(this.#certificates.of('AppHostname', h)), domain?.spec.domain);
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

  /**
   * 409 when another app serves the hostname, or another project serves it from its managed domain (its zone is what
   * the internet asks, so nobody else can prove the name). One verified through published records can be attached:
   * finalize takes it over once that project's verification record is no longer published (the controller looks).
   */
  #refuseTaken(project: string, appId: string, hostname: string): void {
    const verified = this.#store.hostnamesNamed(hostname).find((h) => h.metadata?.namespace !== project && h.status?.state === 'active' && h.spec.dnsMode === 'managed_project_domain');
    if (verified) throw new ConflictError(`${hostname} is verified and served by another project; it cannot be attached here.`);
    const other = this.#apps.listing(hostname).find((a) => !(a.metadata?.namespace === project && a.metadata?.name === appId));
    if (other) throw new ConflictError(`${hostname} is already bound to another app${other.metadata?.namespace === project ? ` (${other.metadata?.name})` : ''}.`);
    const served = this.#store.hostnames(project).find((h) => h.spec.hostname === hostname && h.spec.appRef.name !== appId && h.status?.state === 'active');
    if (served) throw new ConflictError(`${hostname} is already bound to another app (${served.spec.appRef.name}).`);
  }

  /**
   * The types of record `hostname` needs (a CNAME, or A and AAAA at a zone apex), written by the platform
   * in the managed `domain`, else published by the owner; 409 when this installation has nothing to point
   * them at (no runtime addresses for an apex), so no binding is made that could never be routed.
   */
  #plannedRecordTypes(hostname: string, appId: string, domain: ProjectDomain | undefined): string[] {
    const target = this.#settings.runtimeTarget;
    try {
      return domain ? managedAppRecords(hostname, domain.spec.domain, appId, target).map((r) => r.type) : externalAppRecords(hostname, target).map((r) => r.recordType);
    } catch (err) {
      if (!(err instanceof UnroutableError)) throw err;
      const apex = domain ? hostname === domain.spec.domain : isRegistrableDomain(hostname);
      throw new ConflictError(
        apex ? `${noRuntimeAddresses(hostname)} Attach a name under it, such as www.${hostname}.` : `This platform has no runtime DNS target configured to route ${hostname} to.`,
      );
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
      return await this.#store.hostnameClient.create({
        metadata: {
          name: hostname,
          namespace: project,
          labels: { [PROJECT_LABEL]: project },
          ownerReferences: [{ apiVersion: API_VERSION, kind: 'RuntimeApp', name: appId, uid: appUid }],
        },
        spec: { appRef: { name: appId }, hostname, dnsMode: mode },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw namespaceRefusal(err, project) ?? err;
      throw new ConflictError(`${hostname} is being attached by another request; retry.`);
    }
  }
}
