// The syntax of one record value per type, and its canonical form: what the plan compares and what the
// providers write. Pure. Host names inside values are always absolute (a trailing dot is accepted and
// dropped), lowercase, in ASCII form; TXT values are their text, unquoted (see txt.ts for the wire form).
import { isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import type { DnsRecordType } from '../apis/v1alpha1/dns-record.ts';
import { parseCharacterStrings, txtToPresentation } from './txt.ts';

export type ValueCheck = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string };

/** Route 53's limit on one value, in presentation form. */
const MAX_PRESENTATION = 4000;
const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4 = /^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const ok = (value: string): ValueCheck => ({ ok: true, value });
const bad = (message: string): ValueCheck => ({ ok: false, message });

function uint(token: string | undefined, max: number): number | undefined {
  if (token === undefined || !/^[0-9]{1,5}$/.test(token)) return undefined;
  const n = Number(token);
  return n <= max ? n : undefined;
}

/** An IPv4 address in dotted-quad form, without leading zeros (`010.0.0.1` is ambiguous and refused). */
export function ipv4Value(raw: string): ValueCheck {
  const m = IPV4.exec(raw.trim());
  if (!m || m.slice(1).some((octet) => Number(octet) > 255)) return bad(`"${raw}" is not an IPv4 address`);
  return ok(raw.trim());
}

/** An IPv6 address in its RFC 5952 form (lowercase, longest zero run compressed). */
export function ipv6Value(raw: string): ValueCheck {
  const text = raw.trim();
  if (!isIPv6(text) || text.includes('%')) return bad(`"${raw}" is not an IPv6 address`);
  // The WHATWG URL serializer writes IPv6 hosts exactly as RFC 5952 recommends.
  return ok(new URL(`http://[${text}]/`).hostname.slice(1, -1));
}

/**
 * A host name a record points to (CNAME, NS, MX exchange, SRV target): at least two labels of letters,
 * digits, hyphens and underscores (`_domainkey` targets), at most 253 characters. `allowRoot` accepts `.`,
 * the "no service" target of a null MX (RFC 7505) or SRV record (RFC 2782).
 */
export function hostValue(raw: string, allowRoot = false): ValueCheck {
  let text = raw.trim();
  if (allowRoot && text === '.') return ok('.');
  if (isIPv6(text) || IPV4.test(text)) return bad(`"${raw}" is an IP address; a host name is required here`);
  if (text.endsWith('.')) text = text.slice(0, -1);
  const ascii = PRINTABLE_ASCII.test(text) ? text.toLowerCase() : domainToASCII(text);
  const labels = ascii.split('.');
  if (ascii === '' || labels.some((label) => !HOST_LABEL.test(label))) return bad(`"${raw}" is not a valid host name`);
  if (labels.length < 2) return bad(`"${raw}" must be a fully qualified host name, for example app.example.com`);
  if (ascii.length > 253) return bad(`"${raw}" is longer than 253 characters`);
  return ok(ascii);
}

/** TXT: printable ASCII text. A value made only of quoted strings (`"v=spf1 -all"`) is unquoted first. */
export function txtValue(raw: string): ValueCheck {
  const strings = raw.trimStart().startsWith('"') ? parseCharacterStrings(raw) : undefined;
  const text = strings === undefined ? raw : strings.join('');
  if (!PRINTABLE_ASCII.test(text)) {
    return bad('TXT values may contain printable ASCII characters only (no control characters or non-ASCII text)');
  }
  if (txtToPresentation(text).length > MAX_PRESENTATION) return bad(`TXT value is too long: at most about 3900 characters`);
  return ok(text);
}

function mxValue(raw: string): ValueCheck {
  const tokens = raw.trim().split(/\s+/);
  const preference = uint(tokens[0], 65535);
  if (tokens.length !== 2 || preference === undefined) {
    return bad(`"${raw}" is not an MX value: use "<preference 0-65535> <mail server>", for example "10 mail.example.com"`);
  }
  const host = hostValue(tokens[1] ?? '', true);
  return host.ok ? ok(`${preference} ${host.value}`) : bad(`MX mail server ${host.message}`);
}

function srvValue(raw: string): ValueCheck {
  const tokens = raw.trim().split(/\s+/);
  const [priority, weight, port] = tokens.slice(0, 3).map((t) => uint(t, 65535));
  if (tokens.length !== 4 || priority === undefined || weight === undefined || port === undefined) {
    return bad(`"${raw}" is not an SRV value: use "<priority> <weight> <port> <target>" (numbers 0-65535), for example "10 5 5060 sip.example.com"`);
  }
  const target = hostValue(tokens[3] ?? '', true);
  return target.ok ? ok(`${priority} ${weight} ${port} ${target.value}`) : bad(`SRV target ${target.message}`);
}

const CAA_TAGS = new Set(['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone']);

function caaValue(raw: string): ValueCheck {
  // The head by a pattern, the rest by slicing: `\s+(.*?)\s*$` over a value of many spaces backtracked cubically.
  const head = /^\s*([0-9]{1,3})\s+([A-Za-z0-9]{1,15})\s+/.exec(raw);
  const tail = head ? raw.slice(head[0].length).trimEnd() : '';
  const m = head && !/[\n\r\u2028\u2029]/.test(tail) ? [head[0], head[1], head[2], tail] : null;
  const usage = `use "<flags 0-255> <tag> \\"<value>\\"", for example 0 issue "letsencrypt.org"`;
  if (!m || Number(m[1]) > 255) return bad(`"${raw}" is not a CAA value: ${usage}`);
  const flags = Number(m[1]);
  const tag = (m[2] ?? '').toLowerCase();
  if (!CAA_TAGS.has(tag)) return bad(`CAA tag "${m[2]}" is not one of ${[...CAA_TAGS].join(', ')}`);
  const rest = m[3] ?? '';
  const quoted = rest.startsWith('"') ? parseCharacterStrings(rest) : undefined;
  if (rest.startsWith('"') && quoted?.length !== 1) return bad(`"${raw}" is not a CAA value: ${usage}`);
  const value = quoted?.[0] ?? rest;
  if (!quoted && /\s/.test(value)) return bad(`CAA value "${value}" contains spaces and must be quoted`);
  if (!PRINTABLE_ASCII.test(value) || value.length > 255) return bad('CAA values are printable ASCII, at most 255 characters');
  if (tag === 'issue' || tag === 'issuewild') {
    const issuer = (value.split(';')[0] ?? '').trim();
    if (issuer !== '' && !hostValue(issuer).ok) return bad(`CAA ${tag} value "${value}" must start with the certificate authority's domain, or be ";"`);
  }
  if (tag === 'iodef' && !/^(mailto:|https?:\/\/)\S+$/.test(value)) return bad(`CAA iodef value "${value}" must be a mailto: or http(s):// URL`);
  return ok(`${flags} ${tag} ${txtToPresentation(value)}`);
}

/** Checks one value of a record of `type` and answers its canonical form, or a message naming the problem. */
export function canonicalValue(type: DnsRecordType, raw: string): ValueCheck {
  switch (type) {
    case 'A':
      return ipv4Value(raw);
    case 'AAAA':
      return ipv6Value(raw);
    case 'CNAME':
    case 'NS':
      return hostValue(raw);
    case 'MX':
      return mxValue(raw);
    case 'SRV':
      return srvValue(raw);
    case 'CAA':
      return caaValue(raw);
    case 'TXT':
      return txtValue(raw);
  }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT']);

/**
 * The canonical form when `raw` parses as a value of `type`, otherwise `raw` unchanged: how a provider
 * reports what it holds. TXT is left alone: a provider hands back the text already (txtFromPresentation),
 * and parsing it again would unquote a text that happens to start with a quote.
 */
export function canonicalValueOrRaw(type: string, raw: string): string {
  if (!KNOWN_TYPES.has(type) || type === 'TXT') return raw;
  const check = canonicalValue(type as DnsRecordType, raw);
  return check.ok ? check.value : raw;
}
