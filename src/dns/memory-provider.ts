// The DNS provider port in memory, for unit tests, controller tests and `make dev` without moto. It behaves
// as Route 53 does where the port promises something (idempotent create by caller reference, apex NS and SOA
// in every zone, UPSERT, forgiving deletes, ownership tags); it also applies a change atomically.
import { isInZone, normalizeName } from './names.ts';
import { assertOwnerId } from './ownership.ts';
import { DnsProviderError, isEmptyChanges, recordKey, ZONE_DOMAIN_TAG, ZONE_OWNER_TAG, type Changes, type DnsProvider, type HostedZone, type RecordSet } from './provider.ts';

interface MemoryZone {
  readonly zoneId: string;
  readonly domain: string;
  readonly nameservers: readonly string[];
  readonly tags: Map<string, string>;
  readonly records: Map<string, RecordSet>;
}

/** Zones shared by the providers built on it: two installations (owner ids) can see the same account. */
export class MemoryDnsBackend {
  readonly zones = new Map<string, MemoryZone>();
  readonly byCallerReference = new Map<string, string>();
  seq = 0;
}

export type MemoryDnsOp = 'createZone' | 'findZone' | 'deleteZone' | 'listRecords' | 'applyChanges';

export interface MemoryDnsProviderOptions {
  ownerId: string;
  backend?: MemoryDnsBackend;
  /** Nameservers of a new zone; default `ns-<n>-a.memory-dns.test` and `ns-<n>-b.memory-dns.test`. */
  nameservers?: (domain: string, seq: number) => readonly string[];
}

export class MemoryDnsProvider implements DnsProvider {
  readonly backend: MemoryDnsBackend;
  readonly #ownerId: string;
  readonly #nameservers: (domain: string, seq: number) => readonly string[];
  readonly #failures = new Map<MemoryDnsOp, DnsProviderError[]>();
  readonly #holds = new Map<MemoryDnsOp, Promise<void>[]>();

  constructor(options: MemoryDnsProviderOptions) {
    assertOwnerId(options.ownerId);
    this.#ownerId = options.ownerId;
    this.backend = options.backend ?? new MemoryDnsBackend();
    this.#nameservers = options.nameservers ?? ((_, n) => [`ns-${n}-a.memory-dns.test`, `ns-${n}-b.memory-dns.test`]);
  }

  /** Test hook: the next call of `op` throws `error` (default: a retryable `unavailable`) instead of running. */
  failNext(op: MemoryDnsOp, error: DnsProviderError = new DnsProviderError('unavailable', { op })): void {
    this.#failures.set(op, [...(this.#failures.get(op) ?? []), error]);
  }

  /**
   * Test hook: the next call of `op` waits until the returned function is called, then runs (a provider
   * slower than the platform's bound for an answer).
   */
  holdNext(op: 'createZone' | 'deleteZone' | 'applyChanges'): () => void {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    this.#holds.set(op, [...(this.#holds.get(op) ?? []), held]);
    return release;
  }

  async createZone(domain: string, callerReference: string): Promise<HostedZone> {
    await this.#held('createZone');
    this.#injected('createZone');
    if (callerReference.length < 1 || callerReference.length > 128) throw new DnsProviderError('invalid', { op: 'createZone' });
    const name = normalizeName(domain);
    const known = this.backend.byCallerReference.get(callerReference);
    const existing = known === undefined ? undefined : this.backend.zones.get(known);
    if (existing?.domain === name) return { zoneId: existing.zoneId, nameservers: [...existing.nameservers] };
    // A reference is never reused, even for a deleted zone or another domain (Route 53's rule).
    if (known !== undefined) throw new DnsProviderError('rejected', { op: 'createZone', providerCode: 'HostedZoneAlreadyExists' });
    const seq = ++this.backend.seq;
    const zoneId = `ZMEM${String(seq).padStart(10, '0')}`;
    const nameservers = this.#nameservers(name, seq).map(normalizeName);
    const records = new Map<string, RecordSet>();
    const soa = `${nameservers[0] ?? 'ns.invalid'}. hostmaster.${name}. 1 7200 900 1209600 86400`;
    for (const r of [
      { name, type: 'NS', ttl: 172_800, values: nameservers },
      { name, type: 'SOA', ttl: 900, values: [soa] },
    ])
      records.set(recordKey(r), r);
    const tags = new Map([
      [ZONE_OWNER_TAG, this.#ownerId],
      [ZONE_DOMAIN_TAG, name],
    ]);
    this.backend.zones.set(zoneId, { zoneId, domain: name, nameservers, tags, records });
    this.backend.byCallerReference.set(callerReference, zoneId);
    return { zoneId, nameservers: [...nameservers] };
  }

  async findZone(domain: string, callerReference: string): Promise<string | undefined> {
    this.#injected('findZone');
    const zoneId = this.backend.byCallerReference.get(callerReference);
    const zone = zoneId === undefined ? undefined : this.backend.zones.get(zoneId);
    return zone?.domain === normalizeName(domain) ? zone.zoneId : undefined;
  }

  async deleteZone(zoneId: string): Promise<void> {
    await this.#held('deleteZone');
    this.#injected('deleteZone');
    const zone = this.backend.zones.get(zoneId);
    if (!zone) return;
    if (zone.tags.get(ZONE_OWNER_TAG) !== this.#ownerId) throw new DnsProviderError('not_owned', { op: 'deleteZone' });
    this.backend.zones.delete(zoneId);
  }

  async listRecords(zoneId: string): Promise<RecordSet[]> {
    this.#injected('listRecords');
    return [...this.#zone(zoneId, 'listRecords').records.values()].map((r) => ({ ...r, values: [...r.values] }));
  }

  async applyChanges(zoneId: string, changes: Changes): Promise<void> {
    if (isEmptyChanges(changes)) return;
    await this.#held('applyChanges');
    this.#injected('applyChanges');
    const zone = this.#zone(zoneId, 'applyChanges');
    const all = [...changes.delete, ...changes.create, ...changes.update];
    // Validate the whole change first: like Route 53, a change applies entirely or not at all.
    if (all.some((r) => !isInZone(normalizeName(r.name), zone.domain) || r.values.length === 0)) {
      throw new DnsProviderError('rejected', { op: 'applyChanges', providerCode: 'InvalidChangeBatch' });
    }
    for (const r of changes.delete) zone.records.delete(recordKey({ name: normalizeName(r.name), type: r.type }));
    for (const r of [...changes.create, ...changes.update]) {
      const record = { name: normalizeName(r.name), type: r.type, ttl: r.ttl, values: [...r.values] };
      zone.records.set(recordKey(record), record);
    }
  }

  #zone(zoneId: string, op: string): MemoryZone {
    const zone = this.backend.zones.get(zoneId);
    if (!zone) throw new DnsProviderError('zone_not_found', { op, providerCode: 'NoSuchHostedZone' });
    return zone;
  }

  async #held(op: MemoryDnsOp): Promise<void> {
    await this.#holds.get(op)?.shift();
  }

  #injected(op: MemoryDnsOp): void {
    const error = this.#failures.get(op)?.shift();
    if (error) throw error;
  }
}
