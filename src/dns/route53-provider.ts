// The DNS provider port on Amazon Route 53 (and anything speaking its API, such as moto's server in tests).
// The only module that imports the Route 53 SDK.
import {
  ChangeResourceRecordSetsCommand,
  ChangeTagsForResourceCommand,
  CreateHostedZoneCommand,
  DeleteHostedZoneCommand,
  GetHostedZoneCommand,
  ListHostedZonesByNameCommand,
  ListResourceRecordSetsCommand,
  ListTagsForResourceCommand,
  Route53Client,
  type Change,
  type ResourceRecordSet,
  type RRType,
} from '@aws-sdk/client-route-53';
import { decodeNameEscapes, normalizeName } from './names.ts';
import { assertOwnerId } from './ownership.ts';
import { DnsProviderError, isEmptyChanges, ZONE_DOMAIN_TAG, ZONE_OWNER_TAG, type Changes, type DnsProvider, type HostedZone, type RecordSet } from './provider.ts';
import { canonicalValueOrRaw } from './record-values.ts';
import { route53ErrorName, toDnsProviderError } from './route53-errors.ts';
import { txtFromPresentation, txtToPresentation } from './txt.ts';

export interface Route53ProviderOptions {
  /** This installation's owner id: zones are tagged with it, and only zones carrying it are deleted. */
  ownerId: string;
  /** Another endpoint than AWS's (moto's server in tests). */
  endpoint?: string;
  /** Route 53 is global; its API lives in us-east-1 (the default). */
  region?: string;
  /** Static keys; when absent the SDK's default credential chain is used (IRSA, instance profile …). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts per request, including the SDK's retries of throttling and 5xx answers. Default 5. */
  maxAttempts?: number;
  /** Deadline of one HTTP request. Default 15 s. */
  requestTimeoutMs?: number;
}

/** Route 53's limits on one change batch. */
const MAX_BATCH_RECORDS = 1000;
const MAX_BATCH_CHARS = 32_000;

/** Answers that, on a batch with deletes, may mean "already gone" or "changed meanwhile". */
const STALE_DELETE_ERRORS = new Set(['InvalidChangeBatch', 'InvalidInput']);

const bareZoneId = (id: string) => id.replace(/^\/hostedzone\//, '');

/**
 * Route 53 behind the port. Zones are created with a comment and tags naming the owner id; records are
 * written with UPSERT; a batch whose deletes Route 53 refuses (a record already gone, or with other values
 * than we sent) is retried once with the deletes rewritten from a fresh listing, so deleting is forgiving.
 */
export class Route53Provider implements DnsProvider {
  readonly #client: Route53Client;
  readonly #ownerId: string;

  constructor(options: Route53ProviderOptions) {
    assertOwnerId(options.ownerId);
    this.#ownerId = options.ownerId;
    const timeout = options.requestTimeoutMs ?? 15_000;
    this.#client = new Route53Client({
      region: options.region ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      maxAttempts: options.maxAttempts ?? 5,
      requestHandler: { requestTimeout: timeout, connectionTimeout: Math.min(timeout, 5_000) },
    });
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.#client.destroy();
  }

  get #comment(): string {
    return `Cloudwright project domain (owner ${this.#ownerId})`;
  }

  async createZone(domain: string, callerReference: string): Promise<HostedZone> {
    const op = 'createZone';
    if (callerReference.length < 1 || callerReference.length > 128) throw new DnsProviderError('invalid', { op });
    const name = normalizeName(domain);
    // Looking first makes a retry idempotent on emulators too; Route 53 itself also refuses a reused reference.
    let zoneId = await this.#findZone(op, name, callerReference);
    if (zoneId === undefined) {
      try {
        const created = await this.#client.send(new CreateHostedZoneCommand({ Name: name, CallerReference: callerReference, HostedZoneConfig: { Comment: this.#comment } }));
        zoneId = bareZoneId(created.HostedZone?.Id ?? '');
      } catch (err) {
        if (route53ErrorName(err) !== 'HostedZoneAlreadyExists') throw toDnsProviderError(err, op);
        zoneId = await this.#findZone(op, name, callerReference);
        if (zoneId === undefined) throw toDnsProviderError(err, op);
      }
    }
    // Tag on every call: a crash between creating and tagging is repaired by the retry.
    await this.#call(op, () =>
      this.#client.send(
        new ChangeTagsForResourceCommand({
          ResourceType: 'hostedzone',
          ResourceId: zoneId,
          AddTags: [
            { Key: ZONE_OWNER_TAG, Value: this.#ownerId },
            { Key: ZONE_DOMAIN_TAG, Value: name },
          ],
        }),
      ),
    );
    const zone = await this.#call(op, () => this.#client.send(new GetHostedZoneCommand({ Id: zoneId })));
    return { zoneId, nameservers: (zone.DelegationSet?.NameServers ?? []).map(normalizeName) };
  }

  findZone(domain: string, callerReference: string): Promise<string | undefined> {
    return this.#findZone('findZone', normalizeName(domain), callerReference);
  }

  async deleteZone(zoneId: string): Promise<void> {
    const op = 'deleteZone';
    const zone = await this.#ifZoneExists(op, () => this.#client.send(new GetHostedZoneCommand({ Id: zoneId })));
    if (!zone) return;
    const tags = await this.#ifZoneExists(op, () => this.#client.send(new ListTagsForResourceCommand({ ResourceType: 'hostedzone', ResourceId: bareZoneId(zoneId) })));
    if (!tags) return;
    const owner = tags.ResourceTagSet?.Tags?.find((t) => t.Key === ZONE_OWNER_TAG)?.Value;
    // The comment is written with the zone itself, so it marks a zone whose tagging was interrupted.
    if (owner !== this.#ownerId && !(owner === undefined && zone.HostedZone?.Config?.Comment === this.#comment)) {
      throw new DnsProviderError('not_owned', { op });
    }
    const apex = normalizeName(zone.HostedZone?.Name ?? '');
    const raw = await this.#ifZoneExists(op, () => this.#listRaw(zoneId));
    if (!raw) return;
    const deletes = raw.filter((r) => !(decodeNameEscapes(r.Name ?? '') === apex && (r.Type === 'NS' || r.Type === 'SOA'))).map((r): Change => ({ Action: 'DELETE', ResourceRecordSet: r }));
    if (deletes.length > 0 && !(await this.#ifZoneExists(op, () => this.#submit(op, zoneId, deletes).then(() => true)))) return;
    await this.#ifZoneExists(op, () => this.#client.send(new DeleteHostedZoneCommand({ Id: zoneId })));
  }

  async listRecords(zoneId: string): Promise<RecordSet[]> {
    const raw = await this.#call('listRecords', () => this.#listRaw(zoneId));
    return raw.map(fromResourceRecordSet);
  }

  async applyChanges(zoneId: string, changes: Changes): Promise<void> {
    if (isEmptyChanges(changes)) return;
    await this.#submit('applyChanges', zoneId, [
      ...changes.delete.map((r): Change => ({ Action: 'DELETE', ResourceRecordSet: toResourceRecordSet(r) })),
      ...[...changes.create, ...changes.update].map((r): Change => ({ Action: 'UPSERT', ResourceRecordSet: toResourceRecordSet(r) })),
    ]);
  }

  /** Sends `changes` in as few batches as Route 53 allows, in order, forgiving stale deletes. */
  async #submit(op: string, zoneId: string, changes: readonly Change[]): Promise<void> {
    for (const batch of batches(changes)) {
      try {
        await this.#client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Changes: batch } }));
      } catch (err) {
        const name = route53ErrorName(err);
        if (!name || !STALE_DELETE_ERRORS.has(name) || !batch.some((c) => c.Action === 'DELETE')) throw toDnsProviderError(err, op);
        const current = await this.#call(op, () => this.#listRaw(zoneId));
        const retry = refreshDeletes(batch, current);
        if (retry.length === 0) continue;
        await this.#call(op, () => this.#client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Changes: retry } })));
      }
    }
  }

  async #findZone(op: string, domain: string, callerReference: string): Promise<string | undefined> {
    let dnsName: string | undefined = domain;
    let hostedZoneId: string | undefined;
    while (dnsName !== undefined) {
      const page = await this.#call(op, () => this.#client.send(new ListHostedZonesByNameCommand({ DNSName: dnsName, HostedZoneId: hostedZoneId })));
      for (const zone of page.HostedZones ?? []) {
        if (normalizeName(zone.Name ?? '') !== domain) return undefined; // sorted by name: past ours
        if (zone.CallerReference === callerReference) return bareZoneId(zone.Id ?? '');
      }
      const more = page.IsTruncated && normalizeName(page.NextDNSName ?? '') === domain;
      dnsName = more ? page.NextDNSName : undefined;
      hostedZoneId = page.NextHostedZoneId;
    }
    return undefined;
  }

  async #listRaw(zoneId: string): Promise<ResourceRecordSet[]> {
    const out: ResourceRecordSet[] = [];
    let start: { StartRecordName?: string; StartRecordType?: RRType; StartRecordIdentifier?: string } = {};
    for (;;) {
      const page = await this.#client.send(new ListResourceRecordSetsCommand({ HostedZoneId: zoneId, ...start }));
      out.push(...(page.ResourceRecordSets ?? []));
      if (!page.IsTruncated) return out;
      start = {
        StartRecordName: page.NextRecordName,
        StartRecordType: page.NextRecordType,
        ...(page.NextRecordIdentifier ? { StartRecordIdentifier: page.NextRecordIdentifier } : {}),
      };
    }
  }

  async #call<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toDnsProviderError(err, op);
    }
  }

  /** Runs `fn`; a zone that is gone answers `undefined` instead of an error. */
  async #ifZoneExists<T>(op: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.#call(op, fn);
    } catch (err) {
      if (err instanceof DnsProviderError && err.code === 'zone_not_found') return undefined;
      throw err;
    }
  }
}

/** The port's record set as Route 53 writes it: absolute name, TXT text in quoted strings. */
export function toResourceRecordSet(record: RecordSet): ResourceRecordSet {
  return {
    Name: `${record.name}.`,
    Type: record.type as RRType,
    TTL: record.ttl,
    ResourceRecords: record.values.map((v) => ({ Value: record.type === 'TXT' ? txtToPresentation(v) : v })),
  };
}

/** A Route 53 record set in the port's form (see `RecordSet`). */
export function fromResourceRecordSet(raw: ResourceRecordSet): RecordSet {
  const type = raw.Type ?? '';
  const name = decodeNameEscapes(raw.Name ?? '');
  const providerSpecific = Boolean(raw.AliasTarget || raw.SetIdentifier || raw.TrafficPolicyInstanceId);
  const values = raw.AliasTarget
    ? [normalizeName(raw.AliasTarget.DNSName ?? '')]
    : (raw.ResourceRecords ?? []).map((r) => {
        const value = r.Value ?? '';
        return type === 'TXT' ? txtFromPresentation(value, 'octal') : canonicalValueOrRaw(type, value);
      });
  return { name, type, ttl: raw.TTL ?? 0, values, ...(providerSpecific ? { providerSpecific } : {}) };
}

/**
 * `batch` with each DELETE replaced by the record set as it is now (Route 53 deletes only an exact match),
 * or dropped when it is gone. Record sets with a set identifier are never ours and never matched.
 */
function refreshDeletes(batch: readonly Change[], current: readonly ResourceRecordSet[]): Change[] {
  const key = (r: ResourceRecordSet) => `${decodeNameEscapes(r.Name ?? '')} ${r.Type}`;
  const now = new Map(current.filter((r) => !r.SetIdentifier).map((r) => [key(r), r]));
  const out: Change[] = [];
  for (const change of batch) {
    if (change.Action !== 'DELETE' || !change.ResourceRecordSet) {
      out.push(change);
      continue;
    }
    const found = now.get(key(change.ResourceRecordSet));
    if (found) out.push({ Action: 'DELETE', ResourceRecordSet: found });
  }
  return out;
}

/** Splits changes, in order, into batches within Route 53's limits (an UPSERT counts twice). */
function batches(changes: readonly Change[]): Change[][] {
  const out: Change[][] = [];
  let current: Change[] = [];
  let records = 0;
  let chars = 0;
  for (const change of changes) {
    const weight = change.Action === 'UPSERT' ? 2 : 1;
    const values = change.ResourceRecordSet?.ResourceRecords ?? [];
    const r = Math.max(1, values.length) * weight;
    const c = values.reduce((n, v) => n + (v.Value?.length ?? 0), 0) * weight;
    if (current.length > 0 && (records + r > MAX_BATCH_RECORDS || chars + c > MAX_BATCH_CHARS)) {
      out.push(current);
      current = [];
      records = 0;
      chars = 0;
    }
    current.push(change);
    records += r;
    chars += c;
  }
  if (current.length > 0) out.push(current);
  return out;
}
