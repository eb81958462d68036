import { randomBytes } from 'node:crypto';
import { refuseAppliedElsewhere, refuseDeleteOfApplied } from '../applied-elsewhere.ts';
import { namespaceRefusal } from '../namespace-refusal.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { API_VERSION } from '../../apis/v1alpha1/group-version.ts';
import { checkExclusivity, parseRecord, storedNameInput, validateStoredRecord, type ExistingRecord, type ValidRecord } from '../../dns/records.ts';
import { isConflict, objectKey, retryOnConflict, waitFor, waitForAnswer } from '../../kube/index.ts';
import { KeyedMutex } from '../../collections/keyed-mutex.ts';
import { collisionRefusal } from '../../dns/desired.ts';
import { PROJECT_LABEL } from '../resources.ts';
import { CONTROLLER_ANSWER_MS } from './controller-answer.ts';
import type { DomainStore } from './domain-store.ts';
import { recordView, type RecordView } from './views.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.ts';

/** A record as a request states it; `value` is shorthand for a one-element `values`. */
export interface RecordInput {
  readonly name?: string | undefined;
  readonly type?: string | undefined;
  readonly values?: readonly string[] | undefined;
  readonly value?: string | undefined;
  readonly ttl?: number | undefined;
}

/** Owner reference making a DnsRecord a child of its ProjectDomain (deleting the domain object deletes it). */
export function domainOwnerReference(domain: ProjectDomain) {
  return { apiVersion: API_VERSION, kind: 'ProjectDomain', name: domain.metadata?.name ?? '', uid: domain.metadata?.uid ?? '' };
}

/** The records of `domain` other than `except`, validated, for the exclusivity check. */
export function existingRecords(records: readonly DnsRecord[], domain: string, except?: string): ExistingRecord[] {
  return records.flatMap((r) => {
    const id = r.metadata?.name;
    if (id === except) return [];
    const check = validateStoredRecord(r.spec, domain);
    return check.ok ? [{ fqdn: check.record.fqdn, type: check.record.type, id, ownerApp: r.spec.owner?.resourceId }] : [];
  });
}

/** A record write's answer: the record, and whether the controller answered it within the bound. */
export interface RecordAnswer {
  readonly answered: boolean;
  readonly view: RecordView;
}

/** Records one domain may have, platform-owned ones included (as Cloudflare's plans start at 1000 per zone). */
export const MAX_RECORDS_PER_DOMAIN = 1000;

/**
 * DNS records of a project domain for the REST routes. Create and update need the domain to be `managed`
 * (409 otherwise: until the parent zone delegates to the hosted zone nobody would see them); delete works
 * in every state. Platform-owned records (written for an app hostname) are refused to manual edits (409).
 * Each write is answered once the ProjectDomain controller has applied it to the zone (watched in the
 * record's status, at most `answerWithinMs`); the record's `status` says how that went. A delete is
 * answered once the object is gone, which its finalizer holds until the controller has removed the record
 * from the zone.
 *
 * Two writes that would collide (same name and type, or a CNAME beside anything) must not both succeed:
 * writes to one domain take turns in this process (up to the write, not the wait for the zone), each
 * checking against the cache its predecessor settled; and each written record is checked again against the apiserver's list with the rule the zone
 * sync applies (`desiredRecords`: the earlier record wins), which covers writers in other API processes.
 * The loser is undone and answered 409; so is a record that wins only by its name against one created in
 * the same second, since which of the two came first cannot be told (`collisionRefusal`).
 */
export class DnsRecords {
  readonly #store: DomainStore;
  readonly #writes = new KeyedMutex();
  readonly #maxRecords: number;
  readonly #answerWithinMs: number;

  constructor(store: DomainStore, options: { maxRecords?: number | undefined; answerWithinMs?: number | undefined } = {}) {
    this.#store = store;
    this.#maxRecords = options.maxRecords ?? MAX_RECORDS_PER_DOMAIN;
    this.#answerWithinMs = options.answerWithinMs ?? CONTROLLER_ANSWER_MS;
  }

  /** @throws NotFoundError for a missing domain */
  list(project: string, domain: string): RecordView[] {
    const d = this.#store.domain(project, domain);
    return this.#store
      .recordsOf(d)
      .map((r) => recordView(r, d.spec.domain))
      .sort((a, b) => a.fqdn.localeCompare(b.fqdn) || a.type.localeCompare(b.type) || a.record_id.localeCompare(b.record_id));
  }

  async create(project: string, domain: string, input: RecordInput): Promise<RecordAnswer> {
    const d = this.#store.domain(project, domain);
    this.#requireManaged(d, 'created');
    if (input.name === undefined || input.type === undefined) throw new BadRequestError('name and type are required.');
    const record = parseRecord({ name: input.name, type: input.type, values: valuesOf(input) ?? [], ttl: input.ttl }, d.spec.domain);
    const created = await this.#writes.run(domainKey(d), async () => {
      const count = this.#store.recordsOf(d).length;
      if (count >= this.#maxRecords) throw new ConflictError(`${d.spec.domain} has ${count} records, the most a domain may have; delete one first.`);
      this.#checkExclusive(d, record);
      const created = await this.#store.recordClient
        .create({
          metadata: {
            name: `r-${randomBytes(5).toString('hex')}`,
            namespace: project,
            labels: { [PROJECT_LABEL]: project },
            ownerReferences: [domainOwnerReference(d)],
          },
          spec: { domainRef: { name: d.metadata?.name ?? '' }, name: record.name, type: record.type, values: [...record.values], ttl: record.ttl },
        })
        .catch((err: unknown) => {
          throw namespaceRefusal(err, project) ?? err;
        });
      await this.#refuseIfOutranked(d, created, () => this.#store.recordClient.delete(project, created.metadata?.name ?? '', { preconditions: { uid: created.metadata?.uid } }));
      await this.#store.settleObject(this.#store.caches.records, created);
      return created;
    });
    // Outside the turn: the next write only needs this one in the cache, not its way into the zone.
    return this.#applied(d, created);
  }

  /**
   * Omitted name, type and ttl keep the record's, `values` (or `value`) replace its values. Applied to the live
   * record (the cache keeps no managedFields, and may not hold the zone sync's latest status write yet), again
   * after a lost race.
   */
  async update(project: string, domain: string, recordId: string, input: RecordInput): Promise<RecordAnswer> {
    const d = this.#store.domain(project, domain);
    this.#refuseOwned(this.#record(d, recordId), 'changed');
    this.#requireManaged(d, 'updated');
    const values = valuesOf(input);
    const written = await this.#writes.run(domainKey(d), async () => {
      let before: DnsRecord | undefined;
      const written = await retryOnConflict(async () => {
        const live = await this.#store.recordClient.get(project, recordId);
        if (!live || live.metadata?.deletionTimestamp || live.spec.domainRef.name !== d.metadata?.name) throw new NotFoundError(`Domain ${d.spec.domain} has no record ${recordId}.`);
        this.#refuseOwned(live, 'changed');
        const record = parseRecord(
          { name: input.name ?? storedNameInput(live.spec.name, d.spec.domain), type: input.type ?? live.spec.type, values: values ?? live.spec.values, ttl: input.ttl ?? live.spec.ttl },
          d.spec.domain,
        );
        this.#checkExclusive(d, record, recordId);
        const next = { ...live, spec: { ...live.spec, name: record.name, type: record.type, values: [...record.values], ttl: record.ttl } };
        refuseAppliedElsewhere(live, next);
        before = live;
        return this.#store.recordClient.replace(next);
      }).catch((err: unknown) => {
        throw isConflict(err) ? new ConflictError(`Record ${recordId} is being changed by many requests at once; read it again and retry.`) : err;
      });
      await this.#refuseIfOutranked(d, written, () => this.#restore(before ?? written));
      await this.#store.settleObject(this.#store.caches.records, written);
      return written;
    });
    return this.#applied(d, written);
  }

  /** Puts `stored`'s spec back on the record, on whatever version is live (the zone sync writes its status). */
  async #restore(stored: DnsRecord): Promise<void> {
    const { namespace = '', name = '' } = stored.metadata ?? {};
    await retryOnConflict(async () => {
      const live = await this.#store.recordClient.get(namespace, name);
      if (live) await this.#store.recordClient.replace({ ...live, spec: stored.spec });
    });
  }

  /**
   * 409 (after `undo`) when `written` collides with another record of the domain that the zone sync would
   * keep instead, or would lose to it but for the order of names within one second (`collisionRefusal`), as
   * the apiserver lists them now: a writer elsewhere got there first, or may have.
   */
  async #refuseIfOutranked(d: ProjectDomain, written: DnsRecord, undo: () => Promise<unknown>): Promise<void> {
    const { items } = await this.#store.recordClient.list(d.metadata?.namespace ?? '');
    const ofDomain = items.filter((r) => r.spec.domainRef.name === d.metadata?.name);
    const refusal = collisionRefusal(d.spec.domain, ofDomain, written);
    if (refusal === undefined) return;
    await undo();
    throw new ConflictError(refusal);
  }

  /**
   * Removes the record from the zone (also while the domain is pending delegation). `answered` once it is
   * out of the zone (the object gone); false when the controller had not removed it within the bound.
   */
  async delete(project: string, domain: string, recordId: string): Promise<RecordAnswer> {
    const d = this.#store.domain(project, domain);
    const stored = this.#record(d, recordId);
    this.#refuseOwned(stored, 'deleted');
    await refuseDeleteOfApplied(this.#store.recordClient, project, recordId, stored.metadata?.uid);
    await this.#store.recordClient.delete(project, recordId);
    // The record's finalizer holds the object until the controller has taken it out of the zone.
    const { met } = await waitFor(this.#store.caches.records, objectKey(stored), (r) => r?.metadata?.uid !== stored.metadata?.uid, this.#answerWithinMs);
    return { answered: met, view: recordView(stored, d.spec.domain) };
  }

  /** `written` once the controller has reported on its generation (watched; bounded), else as it stands. */
  async #applied(d: ProjectDomain, written: DnsRecord): Promise<RecordAnswer> {
    const answered = await waitForAnswer(this.#store.caches.records, written, () => true, this.#answerWithinMs);
    return { answered: (answered.status?.observedGeneration ?? 0) >= (written.metadata?.generation ?? 0), view: recordView(answered, d.spec.domain) };
  }

  #record(d: ProjectDomain, recordId: string): DnsRecord {
    const found = this.#store.recordsOf(d).find((r) => r.metadata?.name === recordId);
    if (!found) throw new NotFoundError(`Domain ${d.spec.domain} has no record ${recordId}.`);
    return found;
  }

  #requireManaged(d: ProjectDomain, verb: string): void {
    if (d.status?.state === 'managed') return;
    const ns = d.status?.nameservers?.length ? d.status.nameservers.join(', ') : 'the nameservers shown for the domain';
    throw new ConflictError(
      `Records cannot be ${verb} while ${d.spec.domain} is pending_delegation: nobody would resolve them. Set the domain's nameservers at your registrar to ${ns}, then run the delegation check (POST …/domains/${d.spec.domain}/delegation-check). Records can still be deleted.`,
    );
  }

  #refuseOwned(r: DnsRecord, verb: string): void {
    const owner = r.spec.owner;
    if (!owner) return;
    throw new ConflictError(
      `Record ${r.metadata?.name} is owned by the platform (owner ${owner.kind}, ${owner.resourceType} ${owner.resourceId}): it serves a hostname of app ${owner.resourceId} and cannot be ${verb} by hand. It goes when the app or its hostname does.`,
    );
  }

  #checkExclusive(d: ProjectDomain, record: ValidRecord, except?: string): void {
    const clash = checkExclusivity(record, existingRecords(this.#store.recordsOf(d), d.spec.domain, except), d.spec.domain);
    if (clash) throw new ConflictError(clash.message);
  }
}

function domainKey(d: ProjectDomain): string {
  return `${d.metadata?.namespace}/${d.metadata?.name}`;
}

function valuesOf(input: RecordInput): readonly string[] | undefined {
  if (input.values !== undefined && input.value !== undefined) throw new BadRequestError('Give either value or values, not both.');
  return input.value !== undefined ? [input.value] : input.values;
}
