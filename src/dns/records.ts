// Validation and normalization of one DNS record set of a project domain, as a user (REST or kubectl) states
// it: a name relative to the domain or fully qualified under it, a type, values and a TTL. Pure. Errors name
// the field (`name`, `type`, `values[1]`, `ttl`) so the API can show them as they are.
import type { DnsRecordType } from '../apis/v1alpha1/dns-record.ts';
import { PublicError } from '../errors.ts';
import { asciiName, isInZone, normalizeName, relativeName } from './names.ts';
import { OWNED_NAME_MAX_LENGTH, OWNERSHIP_LABEL_PREFIX } from './ownership.ts';
import { canonicalValue } from './record-values.ts';
import { txtToPresentation } from './txt.ts';

/** TTL bounds in seconds: a minute keeps resolvers from hammering the provider, a day bounds a mistake. */
export const TTL_MIN = 60;
export const TTL_MAX = 86_400;
export const TTL_DEFAULT = 300;
/** Values per record set (the DnsRecord CRD's bound). */
export const VALUES_MAX = 100;
/**
 * Characters of all of a record set's values together, as the provider is sent them (TXT quoted): Route 53's
 * own limit per record set. Past it the set could never be published, and a hundred long TXT values would
 * otherwise make one record a quarter megabyte of cluster state.
 */
export const VALUES_CHARS_MAX = 32_000;

export const RECORD_TYPES: readonly DnsRecordType[] = ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT'];

/** A record set as stated: `name` relative (`www`, `@`) or an FQDN under the domain; `type` in any case. */
export interface RecordInput {
  readonly name: string;
  readonly type: string;
  readonly values: readonly string[];
  readonly ttl?: number | undefined;
}

/** A valid record set in normal form. */
export interface ValidRecord {
  /** Relative to the domain: `@` for the apex, else lowercase labels (the DnsRecord `spec.name`). */
  readonly name: string;
  /** Fully qualified, lowercase, no trailing dot. */
  readonly fqdn: string;
  readonly type: DnsRecordType;
  /** Canonical values (record-values.ts), in the order given. */
  readonly values: readonly string[];
  readonly ttl: number;
}

export interface FieldError {
  /** `name`, `type`, `values`, `values[2]` or `ttl`. */
  readonly field: string;
  readonly message: string;
}

export type RecordCheck = { readonly ok: true; readonly record: ValidRecord } | { readonly ok: false; readonly errors: readonly FieldError[] };

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * The record name in both forms. A name equal to the domain or ending in `.<domain>` is taken as fully
 * qualified (a trailing dot forces that reading), anything else as relative: `www` and `www.example.com` are
 * the same record of example.com. `@` and the domain itself are the apex. `*` may only be the first label.
 */
export function recordName(input: string, domain: string): { relative: string; fqdn: string } | FieldError {
  const raw = asciiName(input.trim());
  const err = (message: string): FieldError => ({ field: 'name', message });
  if (raw === '') return err(input.trim() === '' ? 'name is required (use @ for the apex)' : `name ${input} is not a valid domain name`);
  let fqdn: string;
  if (raw === '@') fqdn = domain;
  else if (raw.endsWith('.')) {
    fqdn = normalizeName(raw);
    if (!isInZone(fqdn, domain)) return err(`name ${input} is not inside ${domain}`);
  } else fqdn = isInZone(raw, domain) ? raw : `${raw}.${domain}`;
  const relative = relativeName(fqdn, domain);
  if (relative !== '@') {
    const labels = relative.split('.');
    for (const [i, label] of labels.entries()) {
      if (label === '*' && i === 0) continue;
      if (label === '*') return err(`name ${input}: "*" may only be the first label`);
      if (label === '') return err(`name ${input} has an empty label`);
      if (label.length > 63) return err(`name ${input} has a label longer than 63 characters`);
      if (!LABEL.test(label)) {
        return err(`name ${input} has an invalid label "${label}": use letters, digits, "_" and inner hyphens`);
      }
    }
    if (labels[0]?.startsWith(OWNERSHIP_LABEL_PREFIX)) {
      return err(`name ${input}: labels starting with ${OWNERSHIP_LABEL_PREFIX} are reserved for Cloudwright's ownership records`);
    }
  }
  if (fqdn.length > OWNED_NAME_MAX_LENGTH) {
    return err(`name ${input} is too long: at most ${OWNED_NAME_MAX_LENGTH} characters including the domain`);
  }
  return { relative, fqdn };
}

function typeOf(input: string): DnsRecordType | undefined {
  const upper = input.trim().toUpperCase();
  return (RECORD_TYPES as readonly string[]).includes(upper) ? (upper as DnsRecordType) : undefined;
}

/**
 * Checks a record set of `domain` (a normalized, valid domain name) and answers it in normal form, or every
 * problem found. Rules beyond value syntax: TTL within `TTL_MIN`..`TTL_MAX` (default `TTL_DEFAULT`); one to
 * `VALUES_MAX` distinct values, exactly one for CNAME; no CNAME and no NS at the apex (the zone's own NS
 * records belong to the hosted zone); no wildcard NS; an SRV name starts with `_service._proto`.
 */
export function validateRecord(input: RecordInput, domain: string): RecordCheck {
  const errors: FieldError[] = [];
  const name = recordName(input.name, domain);
  if ('field' in name) errors.push(name);
  const type = typeOf(input.type);
  if (!type) errors.push({ field: 'type', message: `type "${input.type}" is not supported; use one of ${RECORD_TYPES.join(', ')}` });

  const ttl = input.ttl ?? TTL_DEFAULT;
  if (!Number.isInteger(ttl) || ttl < TTL_MIN || ttl > TTL_MAX) {
    errors.push({ field: 'ttl', message: `ttl must be a whole number of seconds from ${TTL_MIN} to ${TTL_MAX}` });
  }

  const values: string[] = [];
  if (input.values.length === 0) errors.push({ field: 'values', message: 'values: at least one value is required' });
  else if (input.values.length > VALUES_MAX) errors.push({ field: 'values', message: `at most ${VALUES_MAX} values are allowed` });
  else if (type === 'CNAME' && input.values.length > 1) errors.push({ field: 'values', message: 'a CNAME record has exactly one value' });
  else if (type) {
    for (const [i, raw] of input.values.entries()) {
      const check = canonicalValue(type, raw);
      if (!check.ok) {
        errors.push({ field: `values[${i}]`, message: `values[${i}]: ${check.message}` });
        continue;
      }
      const first = values.indexOf(check.value);
      if (first >= 0) errors.push({ field: `values[${i}]`, message: `values[${i}] repeats values[${first}]` });
      values.push(check.value);
    }
    const chars = values.reduce((sum, value) => sum + (type === 'TXT' ? txtToPresentation(value).length : value.length), 0);
    if (chars > VALUES_CHARS_MAX) {
      errors.push({ field: 'values', message: `the values come to ${chars} characters; a record set holds at most ${VALUES_CHARS_MAX}` });
    }
  }

  if (!('field' in name) && type) {
    const apex = name.relative === '@';
    const labels = name.relative.split('.');
    if (apex && type === 'CNAME') {
      errors.push({
        field: 'type',
        message: `a CNAME record cannot be at the apex of ${domain} (it would exclude the zone's SOA and NS records); use A or AAAA records`,
      });
    }
    if (apex && type === 'NS') {
      errors.push({
        field: 'type',
        message: `NS records at the apex of ${domain} belong to the hosted zone; NS records may delegate a subdomain only`,
      });
    }
    if (type === 'NS' && labels[0] === '*') errors.push({ field: 'name', message: 'an NS record cannot have a wildcard name' });
    if (type === 'SRV' && !(labels.length >= 2 && labels[0]?.startsWith('_') && labels[1]?.startsWith('_'))) {
      errors.push({
        field: 'name',
        message: `an SRV record's name must start with _service._proto, for example _sip._tcp (got ${name.relative})`,
      });
    }
  }

  if (errors.length > 0 || 'field' in name || !type) return { ok: false, errors };
  return { ok: true, record: { name: name.relative, fqdn: name.fqdn, type, values, ttl } };
}

/** "an A record", "a CNAME record": by how the letters are spoken. */
function article(type: string): string {
  return /^(A|AAAA|MX|NS|SRV)$/.test(type) ? 'an' : 'a';
}

/** A record set already in the zone, for the exclusivity check. */
export interface ExistingRecord {
  readonly fqdn: string;
  readonly type: string;
  /** The record id (DnsRecord name), shown in messages. */
  readonly id?: string | undefined;
  /** Set on platform-owned records: the app whose hostname they serve. */
  readonly ownerApp?: string | undefined;
}

/**
 * Whether `candidate` may join `existing` (the other record sets of the zone, without the candidate itself):
 * one record set per name and type, and a CNAME alone at its name (RFC 1034 §3.6.2). Answers the problem,
 * or `undefined` when there is none.
 */
export function checkExclusivity(candidate: { readonly fqdn: string; readonly type: string }, existing: readonly ExistingRecord[], domain: string): FieldError | undefined {
  const shown = relativeName(candidate.fqdn, domain);
  const describe = (r: ExistingRecord) => `${article(r.type)} ${r.type} record${r.id ? ` (${r.id}${r.ownerApp ? `, written by the platform for app ${r.ownerApp}` : ''})` : ''}`;
  for (const other of existing) {
    if (other.fqdn !== candidate.fqdn) continue;
    if (other.type === candidate.type) {
      return { field: 'name', message: `${describe(other)} already exists at ${shown}; change its values instead` };
    }
    if (candidate.type === 'CNAME' || other.type === 'CNAME') {
      return { field: 'name', message: `a CNAME record must be the only record at its name, and ${shown} already has ${describe(other)}` };
    }
  }
  return undefined;
}

/**
 * `validateRecord` of a stored record (a DnsRecord's spec), whose name is relative to the domain, always, as
 * the CRD says: `www.example.com` stored in example.com is the record www.example.com.example.com, which
 * `validateRecord` would read as www. Everything that reads a stored record goes through this.
 */
export function validateStoredRecord(spec: RecordInput, domain: string): RecordCheck {
  return validateRecord({ ...spec, name: storedNameInput(spec.name, domain) }, domain);
}

/** A stored (relative) record name as `recordName` input that means exactly it: fully qualified, with the dot. */
export function storedNameInput(name: string, domain: string): string {
  return name === '@' ? '@' : `${name}.${domain}.`;
}

/** A record set failed validation; the message lists every problem and is safe to show (HTTP 400). */
export class InvalidRecordError extends PublicError {
  override readonly name = 'InvalidRecordError';
  readonly errors: readonly FieldError[];
  constructor(errors: readonly FieldError[]) {
    super(400, errors.map((e) => e.message).join('; '));
    this.errors = errors;
  }
}

/** The record in normal form, or throws `InvalidRecordError`. */
export function parseRecord(input: RecordInput, domain: string): ValidRecord {
  const check = validateRecord(input, domain);
  if (!check.ok) throw new InvalidRecordError(check.errors);
  return check.record;
}
