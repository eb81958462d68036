import { randomBytes } from 'node:crypto';
import { refuseDeleteOfApplied } from '../applied-elsewhere.ts';
import { namespaceRefusal } from '../namespace-refusal.ts';
import { CREATED_BY_API_ANNOTATION, DELEGATION_CHECK_ANNOTATION, ProjectDomainReasons, ZONE_FINALIZER, type ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { CREATED_BY_USER_ANNOTATION } from '../../apis/v1alpha1/project.ts';
import { findCondition } from '../../conditions/index.ts';
import { parseDomainName } from '../../dns/domain-name.ts';
import { BadRequestError, ConflictError, PublicError } from '../../errors.ts';
import { waitForAnswer } from '../../kube/index.ts';
import { PROJECT_LABEL } from '../resources.ts';
import { CONTROLLER_ANSWER_MS } from './controller-answer.ts';
import { domainRefusal, type DomainRefusal, type Overlap } from './domain-admission.ts';
import type { DomainStore } from './domain-store.ts';
import { delegationLapsed } from './delegation-lapse.ts';
import { providerFailureOf } from './domain-status.ts';
import type { TlsCertificates } from './tls-certificates.ts';
import { tlsView } from './tls-view.ts';
import { domainView, type DomainView } from './views.ts';
import { KeyedMutex } from '../../collections/keyed-mutex.ts';

export interface ProjectDomainsOptions {
  /** The runtime's base domain: it and the domains above it belong to the platform. */
  readonly baseDomain: string;
  /** How long a request waits for the ProjectDomain controller's answer (default {@link CONTROLLER_ANSWER_MS}). */
  readonly answerWithinMs?: number;
}

/**
 * Domains one project may have (Vercel allows 50 per project): each is a hosted zone, and the DNS provider
 * bounds the zones of the whole installation (Route 53: 500 per account by default). Checked against the cache.
 */
export const MAX_DOMAINS_PER_PROJECT = 50;

/**
 * Soft-deleted domains kept per project (as history, for kubectl; the API lists active ones only). Older
 * ones are deleted by the ProjectDomain controller as domains are retired: adding and deleting a domain in a
 * loop would otherwise leave an object behind every round, for good.
 */
export const MAX_DELETED_DOMAINS_KEPT = 20;

/**
 * Domains one person may have waiting for their delegation, across every project (each is a hosted zone, which
 * the installation's provider account bounds: a person adding names they never delegate would use it up).
 */
export const MAX_PENDING_DOMAINS_PER_USER = 10;

/**
 * Project domains for the REST routes. Each request writes intent on the ProjectDomain and waits (watching
 * it, at most `answerWithinMs`) for the ProjectDomain controller to answer in its status: adding one
 * creates the object and answers once its hosted zone exists (with the nameservers), the delegation check
 * asks for a check through {@link DELEGATION_CHECK_ANNOTATION} and answers its verdict, deleting is a soft
 * delete (`spec.deleted`: zone and records go, the object stays as history). When the controller has not
 * answered in time the status as it stands is answered: the write stands, and the controller carries on.
 */
export class ProjectDomains {
  readonly #store: DomainStore;
  /** Adds counted one at a time per person (`create`). */
  readonly #adding = new KeyedMutex();
  readonly #certificates: TlsCertificates;
  readonly #baseDomain: string;
  readonly #answerWithinMs: number;

  constructor(deps: { store: DomainStore; certificates: TlsCertificates } & ProjectDomainsOptions) {
    this.#store = deps.store;
    this.#certificates = deps.certificates;
    this.#baseDomain = deps.baseDomain;
    this.#answerWithinMs = deps.answerWithinMs ?? CONTROLLER_ANSWER_MS;
  }

  /** The project's domains (soft-deleted ones are history, not listed), by name. */
  list(project: string): DomainView[] {
    return this.#store
      .activeDomains(project)
      .map((d) => this.#view(d))
      .sort((a, b) => a.domain.localeCompare(b.domain));
  }

  /** @throws NotFoundError */
  get(project: string, domain: string): DomainView {
    return this.#view(this.#store.domain(project, domain));
  }

  /**
   * Adds `input` to the project: 400 for a name that cannot be a project domain, 409 when this project has it,
   * or when another project holds it, a name above it or one inside it: at once when that project proved its
   * delegation and it has not lapsed (nothing can take the name from it), else once the controller, deciding from
   * the DomainClaims, has refused it. A name another project holds without having proved its delegation, or whose
   * delegation there has lapsed for a day, is added with a zone of its own, its view saying to delegate it to take
   * the name over. Answered once
   * the zone exists (`zoneReady`), else, past the bound, as it stands (no zone nor nameservers yet); when the
   * provider fails the domain stays added (the controller retries) and the error says so.
   */
  async create(project: string, input: string, userId?: string): Promise<{ zoneReady: boolean; view: DomainView }> {
    const domain = parseDomainName(input);
    const now = new Date();
    const refusal = domainRefusal(domain, project, {
      baseDomain: this.#baseDomain,
      holderOf: (name) => overlapOf(this.#store.holders(name)[0], now),
      // Only those that hold firmly as their status says: anything else is the controller's to decide.
      below: this.#store
        .holdersBelow(domain)
        .filter((d) => holdsFirmly(d, now))
        .map((d) => ({ domain: d.spec.domain, project: d.metadata?.namespace ?? '', firm: true, older: true })),
    });
    if (refusal) throw refusalError(refusal);
    // One person's adds are counted one after another, each once the one before is in the cache: added at once they
    // all passed the count of the cache as it was (about 20 of a bound of 10, each a real zone), and one domain sent
    // twice at once (two tabs, a retried POST) was added twice, with two zones (found in review).
    const created = await this.#adding.run(userId ?? `project:${project}`, async () => {
      this.#refuseHeld(project, domain);
      const held = this.#store.activeDomains(project).length;
      if (held >= MAX_DOMAINS_PER_PROJECT) throw new ConflictError(`Project ${project} has ${held} domains, the most a project may have; delete one first.`);
      if (userId !== undefined) {
        const pending = this.#store.pendingDomainsAddedBy(userId, CREATED_BY_USER_ANNOTATION).length;
        if (pending >= MAX_PENDING_DOMAINS_PER_USER) {
          throw new ConflictError(`You have added ${pending} domains that are not delegated yet, the most a person may have waiting; delegate or delete one first.`);
        }
      }
      try {
        const written = await this.#store.domainClient.create({
          metadata: {
            name: `${domain.replaceAll('.', '-').slice(0, 50).replace(/-+$/, '')}-${randomBytes(3).toString('hex')}`,
            namespace: project,
            labels: { [PROJECT_LABEL]: project },
            annotations: { [CREATED_BY_API_ANNOTATION]: 'true', ...(userId !== undefined ? { [CREATED_BY_USER_ANNOTATION]: userId } : {}) },
          },
          spec: { domain, dnsMode: 'zone_delegated' },
        });
        await this.#store.settleObject(this.#store.caches.domains, written);
        return written;
      } catch (err) {
        const refusal = namespaceRefusal(err, project);
        if (refusal) throw refusal;
        throw err;
      }
    });
    const answered = await this.#answer(created, (d) => findCondition(d.status?.conditions, 'ZoneReady') !== undefined);
    const ready = findCondition(answered.status?.conditions, 'Ready');
    const zoned = findCondition(answered.status?.conditions, 'ZoneReady')?.status === 'True';
    if (ready?.reason === ProjectDomainReasons.ReservedDomain || ready?.reason === ProjectDomainReasons.UnderAnotherProject || (ready?.reason === ProjectDomainReasons.DomainTaken && !zoned)) {
      // The controller, deciding from the claims, refused what the cache let through (another project holds the
      // name, one above it or one inside it): this add does not stand. Taken with a zone, it stays: that is the
      // challenge of a claim never proved by delegation, and its view says to delegate the domain.
      await this.#store.domainClient.delete(project, created.metadata?.name ?? '', { preconditions: { uid: created.metadata?.uid } });
      if (this.#ownOther(project, domain, created)) throw new ConflictError(`${domain} is already a domain of project ${project}.`);
      throw refusalError({ reason: ready.reason, message: ready.message ?? `${domain} cannot be a domain of this project.` });
    }
    if (ready?.reason === ProjectDomainReasons.TooManyDomains) {
      // Adds racing past the count above: the controller, counting oldest first, keeps the limit; this one goes.
      await this.#store.domainClient.delete(project, created.metadata?.name ?? '', { preconditions: { uid: created.metadata?.uid } });
      throw new ConflictError(`Project ${project} has ${MAX_DOMAINS_PER_PROJECT} domains, the most a project may have; delete one first.`);
    }
    const failure = providerFailureOf(answered);
    if (failure && !answered.status?.hostedZoneId) {
      throw new PublicError(
        failure.status,
        `${domain} was added, but its hosted zone could not be created yet: ${failure.message} The platform keeps retrying; GET the domain to see when its nameservers are ready.`,
        failure.headers,
      );
    }
    return { zoneReady: answered.status?.hostedZoneId !== undefined, view: this.#view(answered) };
  }

  /**
   * Asks the parent zone whether the domain is delegated to its zone's nameservers: `managed` when they
   * are equal, `pending_delegation` otherwise, with the reason in `status_message`. Repeatable.
   */
  async checkDelegation(project: string, domain: string): Promise<{ checked: boolean; view: DomainView }> {
    const found = this.#store.domain(project, domain);
    const request = `${new Date().toISOString()}-${randomBytes(4).toString('hex')}`;
    const asked = await this.#store.domainClient.patch(found.metadata?.namespace ?? '', found.metadata?.name ?? '', {
      metadata: { annotations: { [DELEGATION_CHECK_ANNOTATION]: request } },
    });
    const answered = await this.#answer(asked, (d) => d.status?.lastHandledDelegationCheck === request);
    const failure = providerFailureOf(answered);
    if (failure && !answered.status?.hostedZoneId) throw failure;
    // Not checked within the bound: the status as it stands, said to be so (202); the check still runs.
    return { checked: answered.status?.lastHandledDelegationCheck === request, view: this.#view(answered) };
  }

  /**
   * Soft delete: records and zone go, the object is kept (`status: deleted`); the name can be added again.
   * `retired` once the controller has deleted them; false when it had not within the bound (it carries on).
   */
  async delete(project: string, domain: string): Promise<{ retired: boolean; view: DomainView }> {
    const found = this.#store.domain(project, domain);
    const { namespace = '', name = '' } = found.metadata ?? {};
    // A soft delete, but a GitOps tool applying the domain would keep declaring it: refused as a deletion.
    await refuseDeleteOfApplied(this.#store.domainClient, namespace, name, found.metadata?.uid);
    const marked = await this.#store.domainClient.patch(namespace, name, { spec: { deleted: true } });
    // Retired: the zone is gone and the controller has let go of the object (its finalizer removed).
    const retired = (d: ProjectDomain) => d.status?.state === 'deleted' && !d.metadata?.finalizers?.includes(ZONE_FINALIZER);
    const answered = await this.#answer(marked, (d) => retired(d) || findCondition(d.status?.conditions, 'Ready')?.reason === ProjectDomainReasons.ZoneDeletionFailed);
    const failure = answered.status?.state === 'deleted' ? undefined : providerFailureOf(answered);
    if (failure) {
      throw new PublicError(failure.status, `${found.spec.domain} is deleted, but its hosted zone could not be removed yet: ${failure.message} The platform keeps retrying.`, failure.headers);
    }
    return { retired: retired(answered), view: this.#view(answered) };
  }

  /** The domain with the certificate the operator keeps for it and its wildcard. */
  #view(d: ProjectDomain): DomainView {
    return domainView(d, tlsView(this.#certificates.of('ProjectDomain', d)));
  }

  /**
   * Waits until the controller has looked at `written`'s generation and `answers` holds (or the object was
   * replaced by another of its name), watching the cache; answers the domain as it then stands (or as
   * written, when the cache never showed it).
   */
  #answer(written: ProjectDomain, answers: (d: ProjectDomain) => boolean): Promise<ProjectDomain> {
    return waitForAnswer(this.#store.caches.domains, written, answers, this.#answerWithinMs);
  }

  /**
   * 409 when the project has the domain already (in any state), or another project holds it and proves its
   * delegation. Another project's claim that never proved it, or whose delegation has lapsed for a day, proves
   * nothing: the add challenges it (the controller).
   */
  #refuseHeld(project: string, domain: string): void {
    if (this.#ownOther(project, domain)) throw new ConflictError(`${domain} is already a domain of project ${project}.`);
    if (this.#store.holders(domain).some((d) => d.metadata?.namespace !== project && holdsFirmly(d, new Date()))) {
      throw new ConflictError(`${domain} is already a domain of another project; a domain can belong to one project only.`);
    }
  }

  /** Whether the project has another active domain of this name than `except`. */
  #ownOther(project: string, domain: string, except?: ProjectDomain): boolean {
    return this.#store.activeDomains(project).some((d) => d.spec.domain === domain && d.metadata?.uid !== except?.metadata?.uid);
  }
}

/**
 * Whether a holder keeps its name, and names above and below it, from other projects, as its status says: it proved
 * its delegation, and that has not lapsed (review-163 F4 for the name, review-171 F3 for names above and below).
 */
function holdsFirmly(d: ProjectDomain, now: Date): boolean {
  return d.status?.delegatedAt !== undefined && !delegationLapsed(d, now);
}

/** A holder as the admission rule weighs it from the API's cache, older than an add. */
function overlapOf(d: ProjectDomain | undefined, now: Date): Overlap | undefined {
  return d && { project: d.metadata?.namespace ?? '', firm: holdsFirmly(d, now), older: true };
}

/** A refused name as the API answers it: one no project may have is a bad request; one under another project's domain a conflict. */
function refusalError(refusal: DomainRefusal): PublicError {
  return refusal.reason === 'ReservedDomain' ? new BadRequestError(refusal.message) : new ConflictError(refusal.message);
}
