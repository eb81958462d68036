// Ownership marks for the record sets Cloudwright writes, after external-dns's TXT registry: beside each record
// set we own, a TXT record set at `_cw-<type>.<name>` (a wildcard `*.<rest>` is marked at
// `_cw-<type>-wildcard.<rest>`) whose text names the owner. Written in the same change as the record set, in
// a name of its own so it never collides with the record (a CNAME excludes every other type at its name).
// A record set without our mark is foreign: the plan never updates or deletes it. Pure.
import type { RecordSet } from './provider.ts';

/** First characters of an ownership record's first label; refused in user record names. */
export const OWNERSHIP_LABEL_PREFIX = '_cw-';

/** TTL of the ownership TXT records: nobody resolves them in a hurry. */
export const OWNERSHIP_TTL = 300;

/**
 * Longest name (FQDN) of a record set we can own: the mark adds at most 17 characters
 * (`*.x` → `_cw-cname-wildcard.x`) and DNS names end at 253.
 */
export const OWNED_NAME_MAX_LENGTH = 236;

/** An installation's owner id, as configured (lowercase letters, digits, `.`, `_`, `-`; at most 63). */
export const OWNER_ID_PATTERN = /^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/;

const WILDCARD_SUFFIX = '-wildcard';
const HERITAGE = 'heritage=cloudwright';
const OWNER_KEY = 'cloudwright/owner=';

/** Throws unless `ownerId` matches `OWNER_ID_PATTERN`: a configuration error, found at start-up. */
export function assertOwnerId(ownerId: string): void {
  if (!OWNER_ID_PATTERN.test(ownerId)) {
    throw new Error(`DNS owner id "${ownerId}" is invalid: use lowercase letters, digits, ".", "_" and "-" (at most 63)`);
  }
}

/** Where the mark of the record set (`name`, `type`) lives. */
export function ownershipName(name: string, type: string): string {
  const label = `${OWNERSHIP_LABEL_PREFIX}${type.toLowerCase()}`;
  return name.startsWith('*.') ? `${label}${WILDCARD_SUFFIX}.${name.slice(2)}` : `${label}.${name}`;
}

/** The record set a mark at `name` is for, or `undefined` when `name` is not an ownership name. */
export function parseOwnershipName(name: string): { name: string; type: string } | undefined {
  const dot = name.indexOf('.');
  if (dot < 0) return undefined;
  const label = name.slice(0, dot);
  const rest = name.slice(dot + 1);
  const m = /^_cw-([a-z0-9]+)(-wildcard)?$/.exec(label);
  if (!m?.[1]) return undefined;
  return { name: m[2] ? `*.${rest}` : rest, type: m[1].toUpperCase() };
}

/** The text of a mark: `heritage=cloudwright,cloudwright/owner=<ownerId>`. */
export function ownershipText(ownerId: string): string {
  return `${HERITAGE},${OWNER_KEY}${ownerId}`;
}

/** The owner id a mark's text names, or `undefined` when the text is not a Cloudwright mark. */
export function parseOwnershipText(text: string): string | undefined {
  const parts = text.split(',');
  if (parts[0] !== HERITAGE) return undefined;
  const owner = parts.find((p) => p.startsWith(OWNER_KEY))?.slice(OWNER_KEY.length);
  return owner && OWNER_ID_PATTERN.test(owner) ? owner : undefined;
}

/** The mark of the record set (`name`, `type`) for `ownerId`. */
export function ownershipRecord(name: string, type: string, ownerId: string): RecordSet {
  return { name: ownershipName(name, type), type: 'TXT', ttl: OWNERSHIP_TTL, values: [ownershipText(ownerId)] };
}
