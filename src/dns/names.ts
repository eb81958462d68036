// Domain-name helpers shared by the DNS modules. Inside src/dns every name is in one form: lowercase, no
// trailing dot, the wildcard spelled `*` (an FQDN such as `*.app.example.com`; the root is the empty string).
import { domainToASCII } from 'node:url';

/**
 * Lowercases and drops one trailing dot: `WWW.Example.com.` → `www.example.com`; a name outside ASCII is
 * converted to its ASCII (punycode) form first, as project domains are stored: `www.Bücher.example` →
 * `www.xn--bcher-kva.example` (the empty string when IDNA refuses it, which no check accepts).
 */
export function normalizeName(name: string): string {
  const lower = asciiName(name);
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** `name` lowercased, in its ASCII (punycode) form if it has characters outside ASCII; '' if IDNA refuses it. */
export function asciiName(name: string): string {
  // Only a name outside ASCII goes through IDNA: domainToASCII would also rewrite some ASCII names.
  return PRINTABLE_ASCII.test(name) ? name.toLowerCase() : domainToASCII(name);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** True when `name` is `zone` itself or a name below it (both normalized). */
export function isInZone(name: string, zone: string): boolean {
  if (zone === '') return true;
  return name === zone || name.endsWith(`.${zone}`);
}

/** True when `name` is strictly below `zone` (both normalized). */
export function isBelow(name: string, zone: string): boolean {
  return name !== zone && isInZone(name, zone);
}

/** `www.example.com` in `example.com` → `www`; the apex → `@`. `name` must be in the zone. */
export function relativeName(name: string, zone: string): string {
  if (name === zone) return '@';
  return name.slice(0, name.length - zone.length - 1);
}

/** `www` in `example.com` → `www.example.com`; `@` → `example.com`. */
export function absoluteName(relative: string, zone: string): string {
  return relative === '@' ? zone : `${relative}.${zone}`;
}

/** The name without its first label: `a.b.c` → `b.c`, `c` → `` (the root). */
export function parentName(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** A set of host names compared the DNS way: case-insensitive, trailing dots ignored; sorted, unique. */
export function nameSet(names: readonly string[]): string[] {
  return [...new Set(names.map(normalizeName))].sort();
}

/**
 * Decodes the zone-file escapes a provider may use in owner names (`\052` for `*`, `\\.` …) and normalizes
 * the result. Route 53 spells a wildcard `\052.example.com.` in its answers.
 */
export function decodeNameEscapes(name: string): string {
  const decoded = name.replace(/\\(\d{3}|.)/g, (_, esc: string) => (esc.length === 3 ? String.fromCharCode(Number.parseInt(esc, 8)) : esc));
  return normalizeName(decoded);
}
