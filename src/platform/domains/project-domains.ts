import { createHash, randomBytes } from 'node:crypto';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { parseDomainName } from '../../dns/domain-name.ts';
import { isInZone } from '../../dns/names.ts';
import { BadRequestError, ConflictError, PublicError } from '../../errors.ts';
import { isNotFound } from '../../kube/index.ts';
import { oldestBeyond } from '../../collections/retention.ts';
import { PROJECT_LABEL } from '../resources.ts';
import { byAge, isActive, mustGiveWay, type DomainStore } from './domain-store.ts';
import { ZONE_CREATOR_ANNOTATION, ZONE_FINALIZER, type DomainReconciler } from './domain-reconciler.ts';
import { domainView, type DomainView } from './views.ts';

export interface ProjectDomainsOptions {
  /** The runtime's base domain: it and the domains above it belong to the platform. */
  readonly baseDomain: string;
}

/**
 * Domains one project may have (Vercel allows 50 per project): each is a hosted zone, and the DNS provider
 * bounds the zones of the whole installation (Route 53: 500 per account by default). Checked against the cache.
 */
export const MAX_DOMAINS_PER_PROJECT = 50;

/**
 * Soft-deleted domains kept per project (as history, for kubectl; the API lists active ones only). Older
 * ones are deleted as domains are deleted: adding and deleting a domain in a loop would otherwise leave an
 * object behind every round, for good.
 */
export const MAX_DELETED_DOMAINS_KEPT = 20;
/** Old history deleted at most per domain deleted: a bound on the work of one request. */
const MAX_HISTORY_PRUNED_PER_CALL = 5;

/**
 * Label carrying a digest of the domain name (a label value holds 63 characters, a name up to 253), so the
 * objects competing for one name are listed by a selector rather than by listing every domain there is.
 */
export const DOMAIN_NAME_LABEL = 'cloudwright.dev/domain-name-sha256';
const domainNameLabel = (domain: string): string => createHash('sha256').update(domain).digest('hex').slice(0, 63);

/**
 * Project domains for the REST routes: adding one creates its ProjectDomain and its hosted zone (answered
 * with the nameservers), the delegation check moves it between `pending_delegation` and `managed`, deleting
 * it is a soft delete (zone and records go, the object stays as history).
 */
export class ProjectDomains {
  readonly #store: DomainStore;
  readonly #reconciler: DomainReconciler;
  readonly #baseDomain: string;

  constructor(deps: { store: DomainStore; reconciler: DomainReconciler } & ProjectDomainsOptions) {
    ({ store: this.#store, reconciler: this.#reconciler, baseDomain: this.#baseDomain } = deps);
  }

  /** The project's domains (soft-deleted ones are history, not listed), by name. */
  list(project: string): DomainView[] {
    return this.#store.activeDomains(project).map(domainView).sort((a, b) => a.domain.localeCompare(b.domain));
  }

  /** @throws NotFoundError */
  get(project: string, domain: string): DomainView {
    return domainView(this.#store.domain(project, domain));
  }

  /**
   * Adds `input` to the project: 400 for a name that cannot be a project domain, 409 when this or another
   * project holds it. The zone is created before answering; when the provider fails the domain stays
   * added (the operator retries) and the error says so.
   */
  async create(project: string, input: string): Promise<DomainView> {
    const domain = parseDomainName(input);
    const base = this.#baseDomain;
    if (isInZone(domain, base) || isInZone(base, domain)) {
      throw new BadRequestError(`${domain} cannot be a project domain: the platform serves apps under ${base}.`);
    }
    this.#refuseHeld(project, this.#store.holders(domain), domain);
    const held = this.#store.activeDomains(project).length;
    if (held >= MAX_DOMAINS_PER_PROJECT) throw new ConflictError(`Project ${project} has ${held} domains, the most a project may have; delete one first.`);
    let created: ProjectDomain;
    try {
      created = await this.#store.domainClient.create({
        metadata: {
          name: `${domain.replaceAll('.', '-').slice(0, 50).replace(/-+$/, '')}-${randomBytes(3).toString('hex')}`,
          namespace: project,
          labels: { [PROJECT_LABEL]: project, [DOMAIN_NAME_LABEL]: domainNameLabel(domain) },
          annotations: { [ZONE_CREATOR_ANNOTATION]: 'api' },
          finalizers: [ZONE_FINALIZER],
        },
        spec: { domain, dnsMode: 'zone_delegated' },
      });
    } catch (err) {
      if (isNotFound(err)) throw new ConflictError(`Project ${project} is not set up yet (its namespace does not exist); retry in a few seconds.`);
      throw err;
    }
    // Two adds racing past the check above (here or in another replica): the older object wins, the other
    // backs off. Creation times have whole seconds: an object that is first only because its name sorts first
    // among those of its second backs off too, since the other's writer may have checked before this object
    // existed and answered 201 already (both may back off; then neither add stands and the caller retries).
    // Objects without the label (applied with kubectl, or added by an older replica) come from the cache.
    const labelled = await this.#store.domainClient.list('', { labelSelector: `${DOMAIN_NAME_LABEL}=${domainNameLabel(domain)}` });
    const rivals = new Map([...this.#store.holders(domain), ...labelled.items].map((d) => [d.metadata?.uid, d]));
    const holders = [...rivals.values()].filter((d) => d.spec.domain === domain && isActive(d) && !d.metadata?.deletionTimestamp).sort(byAge);
    if (mustGiveWay(created, holders)) {
      await this.#store.domainClient.patch(project, created.metadata?.name ?? '', { metadata: { finalizers: null } });
      await this.#store.domainClient.delete(project, created.metadata?.name ?? '');
      this.#refuseHeld(project, holders.filter((d) => d.metadata?.uid !== created.metadata?.uid), domain);
    }
    await this.#store.settleObject(this.#store.caches.domains, created);
    const pass = await this.#reconciler.reconcile(created);
    if (pass.failure) {
      throw new PublicError(
        pass.failure.status,
        `${domain} was added, but its hosted zone could not be created yet: ${pass.failure.message} The platform keeps retrying; GET the domain to see when its nameservers are ready.`,
        pass.failure.headers,
      );
    }
    return domainView(pass.domain);
  }

  /**
   * Asks the parent zone whether the domain is delegated to its zone's nameservers: `managed` when they
   * are equal, `pending_delegation` otherwise, with the reason in `status_message`. Repeatable.
   */
  async checkDelegation(project: string, domain: string): Promise<DomainView> {
    const pass = await this.#reconciler.reconcile(this.#store.domain(project, domain), { checkDelegation: true });
    if (pass.failure && !pass.domain.status?.hostedZoneId) throw pass.failure;
    return domainView(pass.domain);
  }

  /** Soft delete: records and zone go, the object is kept (`status: deleted`); the name can be added again. */
  async delete(project: string, domain: string): Promise<DomainView> {
    const found = this.#store.domain(project, domain);
    const { namespace = '', name = '' } = found.metadata ?? {};
    const marked = await this.#store.domainClient.patch(namespace, name, { spec: { deleted: true } });
    await this.#store.settleObject(this.#store.caches.domains, marked);
    try {
      const retired = await this.#reconciler.retire(marked);
      // Housekeeping: a failure leaves the old history for the next delete, and must not fail this one.
      await this.#pruneHistory(project).catch(() => undefined);
      return domainView(retired);
    } catch (err) {
      if (!(err instanceof PublicError)) throw err;
      throw new PublicError(err.status, `${found.spec.domain} is deleted, but its hosted zone could not be removed yet: ${err.message} The platform keeps retrying.`, err.headers);
    }
  }

  /**
   * Deletes the project's oldest soft-deleted domains beyond {@link MAX_DELETED_DOMAINS_KEPT}: only retired
   * ones (zone gone, finalizer released), which nothing reconciles any more.
   */
  async #pruneHistory(project: string): Promise<void> {
    const retired = this.#store
      .allDomains(project)
      .filter((d) => !isActive(d) && d.status?.state === 'deleted' && !d.metadata?.finalizers?.includes(ZONE_FINALIZER))
      .sort(byAge);
    for (const old of oldestBeyond(retired, MAX_DELETED_DOMAINS_KEPT, MAX_HISTORY_PRUNED_PER_CALL)) await this.#store.domainClient.delete(project, old.metadata?.name ?? '');
  }

  #refuseHeld(project: string, holders: readonly ProjectDomain[], domain: string): void {
    const holder = holders[0];
    if (!holder) return;
    if (holder.metadata?.namespace === project) throw new ConflictError(`${domain} is already a domain of project ${project}.`);
    throw new ConflictError(`${domain} is already a domain of another project; a domain can belong to one project only.`);
  }
}
