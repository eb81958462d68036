// Where the platform may send what a tenant names: a webhook URL is resolved and every address it resolves to is
// checked against the internal ranges below, so a webhook cannot make the service post into the cluster, the node
// or a cloud metadata endpoint (the connection then uses exactly the addresses checked); a delegation check asks
// only parent nameservers at public addresses, so a tenant's DNS cannot make the operator query internal hosts.
import { BlockList, isIP, isIPv4 } from 'node:net';
import { isAddressOrRange } from './address-range.ts';

/** Refused unless private targets are allowed: each range with what it is, for the error message. */
export const INTERNAL_RANGES: readonly { readonly range: string; readonly what: string }[] = [
  { range: '0.0.0.0/8', what: '"this network"' },
  { range: '10.0.0.0/8', what: 'private' },
  { range: '100.64.0.0/10', what: 'carrier-grade NAT' },
  { range: '127.0.0.0/8', what: 'loopback' },
  { range: '169.254.0.0/16', what: 'link-local (cloud metadata)' },
  { range: '172.16.0.0/12', what: 'private' },
  { range: '192.0.0.0/24', what: 'IETF protocol assignments' },
  { range: '192.0.2.0/24', what: 'documentation' },
  { range: '192.168.0.0/16', what: 'private' },
  { range: '198.18.0.0/15', what: 'benchmarking' },
  { range: '198.51.100.0/24', what: 'documentation' },
  { range: '203.0.113.0/24', what: 'documentation' },
  { range: '224.0.0.0/4', what: 'multicast' },
  { range: '240.0.0.0/4', what: 'reserved' },
  { range: '::/96', what: 'unspecified, loopback or IPv4-compatible' },
  { range: '64:ff9b:1::/48', what: 'local-use NAT64' },
  { range: '100::/64', what: 'discard' },
  { range: '2001::/32', what: 'Teredo (a tunnel to an IPv4 host)' },
  { range: '2001:2::/48', what: 'benchmarking' },
  { range: '2001:db8::/32', what: 'documentation' },
  { range: 'fc00::/7', what: 'unique local (private)' },
  { range: 'fe80::/10', what: 'link-local' },
  { range: 'fec0::/10', what: 'site-local (deprecated, private)' },
  { range: 'ff00::/8', what: 'multicast' },
];

/** A delivery refused before any connection: the target resolves to a denied address. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

export interface TargetPolicyOptions {
  /** `events.allow_private_targets`: the internal ranges are allowed (a receiver on this host or in the cluster). */
  readonly allowPrivate?: boolean;
  /** `events.denied_target_ranges`: more addresses and CIDR ranges to refuse, whatever `allowPrivate` says. */
  readonly denied?: readonly string[];
  /** The settings a refusal names, for the operator who would change them (default: cw-git's `events.*`). */
  readonly settings?: { readonly allowHint: string; readonly denied: string };
}

const EVENTS_SETTINGS = { allowHint: 'set events.allow_private_targets: true to deliver to internal addresses', denied: 'events.denied_target_ranges' };

type Family = 'ipv4' | 'ipv6';

function blockList(range: string): BlockList {
  if (!isAddressOrRange(range)) throw new RangeError(`not an address or CIDR range: ${range}`);
  const [address = '', bits] = range.split('/');
  const family: Family = isIPv4(address) ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (bits === undefined) list.addAddress(address, family);
  else list.addSubnet(address, Number(bits), family);
  return list;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 read), or `undefined`. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.length === 8 ? groups.map((g) => parseInt(g, 16)) : undefined;
}

/**
 * The IPv4 address an IPv6 address carries to an IPv4 host: NAT64 (`64:ff9b::/96`), IPv4-translated
 * (`::ffff:0:a.b.c.d`, SIIT) and 6to4 (`2002::/16`); the local-use NAT64 prefix and Teredo are refused whole.
 * (IPv4-mapped `::ffff:a.b.c.d` is matched against the IPv4 ranges by `BlockList` itself.)
 */
function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6]!, g[7]!);
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return undefined;
}

/** Checks resolved addresses against the deny-list. */
export class TargetPolicy {
  readonly #rules: readonly { readonly range: string; readonly what: string; readonly list: BlockList }[];
  readonly #allowPrivate: boolean;
  readonly #settings: { readonly allowHint: string; readonly denied: string };

  constructor(options: TargetPolicyOptions = {}) {
    this.#allowPrivate = options.allowPrivate === true;
    this.#settings = options.settings ?? EVENTS_SETTINGS;
    const internal = this.#allowPrivate ? [] : INTERNAL_RANGES;
    const denied = (options.denied ?? []).map((range) => ({ range, what: `in ${this.#settings.denied}` }));
    this.#rules = [...internal, ...denied].map((rule) => ({ ...rule, list: blockList(rule.range) }));
  }

  /** Why `address` is refused, or `undefined` when deliveries may go there. */
  refusal(address: string): string | undefined {
    const family = isIP(address);
    if (family === 0) return `${address} is not an IP address`;
    const candidates = [address, ...(family === 6 ? [embeddedIPv4(address)].filter((a): a is string => a !== undefined) : [])];
    for (const candidate of candidates) {
      const kind: Family = isIPv4(candidate) ? 'ipv4' : 'ipv6';
      const rule = this.#rules.find((r) => r.list.check(candidate, kind));
      if (rule) {
        const allow = this.#allowPrivate || rule.what.startsWith('in ') ? '' : `; ${this.#settings.allowHint}`;
        return `${address}, in ${rule.range} (${rule.what})${allow}`;
      }
    }
    return undefined;
  }

  /** Throws `TargetRefusedError` unless every address of `host` may be delivered to. */
  check(host: string, addresses: readonly string[]): void {
    if (addresses.length === 0) throw new TargetRefusedError(`the webhook host ${host} resolves to no address`);
    for (const address of addresses) {
      const why = this.refusal(address);
      if (why) throw new TargetRefusedError(`the webhook host ${host} resolves to ${why}`);
    }
  }
}
