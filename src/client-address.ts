import { isIPv6 } from 'node:net';

/**
 * The key a client address is limited by: an IPv4 address as it is, an IPv6 address by its /64 prefix. A
 * single IPv6 subscriber or host is usually given a whole /64 (RFC 6177), so limiting each address would
 * let one client rotate through 2^64 of them. An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`) is
 * its IPv4 address. A port some proxies append to the address they forward (`192.0.2.1:5678`, `[2001:db8::1]:5678`)
 * is left out: it would make each connection a client of its own.
 */
export function clientAddressKey(address: string): string {
  const unported = /^\[([^\]]+)\](?::\d+)?$/.exec(address)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(address)?.[1] ?? address;
  const bare = unported.split('%')[0] ?? unported;
  if (!isIPv6(bare)) return unported;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  return `${expandIPv6(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lowercase hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':').flatMap(ipv4Groups));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...(tail === undefined ? [] : zeros), ...right].map((g) => Number.parseInt(g, 16).toString(16));
}

/** A dotted IPv4 tail (`::1.2.3.4`) as its two groups; any other group as it is. */
function ipv4Groups(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
