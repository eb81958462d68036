import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConfigError } from '../src/config/env.ts';
import type { Logger } from '../src/logging/log.ts';

/**
 * Addresses that are never an endpoint of its own: every interface, and the loopback address where the
 * platform's other processes listen on one machine. workerd's allow list names addresses without ports, so
 * allowing one of these would open every port behind it.
 */
const SHARED_ADDRESSES = ['0.0.0.0', '::', '127.0.0.1', '::1'];

/** An address as `dns.lookup` spells it: lower case, an IPv4-mapped IPv6 address as its IPv4 address. */
export function canonicalAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] ?? lower;
}

/** One address as the CIDR of that address alone, as workerd's allow list takes it. */
export function hostCidr(address: string): string {
  return `${address}/${isIP(address) === 6 ? 128 : 32}`;
}

/** The addresses of `url`'s host (a literal or a name, resolved the way the system resolves it). */
export async function resolveHost(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [canonicalAddress(bare)];
  return (await lookup(bare, { all: true })).map((a) => canonicalAddress(a.address));
}

/** Of `addresses`, the ones the platform shares with something else (`reserved`, plus every-interface and 127.0.0.1). */
export function sharedAddresses(addresses: readonly string[], reserved: Iterable<string>): string[] {
  const shared = new Set([...SHARED_ADDRESSES, ...reserved].map(canonicalAddress));
  return addresses.filter((a) => shared.has(canonicalAddress(a)));
}

export interface DatabaseEgressOptions {
  /** The SQL endpoint apps are to reach (CW_RUNTIME_DATABASE_URL). */
  readonly url: string;
  /** Host names and addresses where other parts of the platform listen (the apiserver, S3, the runtime's own ports). */
  readonly platformHosts: readonly string[];
  readonly log: Logger;
  /** Name resolution (tests give their own). */
  readonly resolve?: (host: string) => Promise<string[]>;
}

/**
 * The one private destination apps may reach: the platform's SQL endpoint, by the addresses its host resolves to
 * (a Service's ClusterIP in a cluster, cw-db's own loopback address on one machine). An address it shares with
 * another part of the platform is refused: `check` fails the start with a ConfigError, and `allow` never lists it.
 */
export class DatabaseEgress {
  readonly #o: DatabaseEgressOptions;
  readonly #host: string;
  readonly #resolve: (host: string) => Promise<string[]>;
  #reserved: string[] = [];
  #last: readonly string[] = [];

  constructor(options: DatabaseEgressOptions) {
    this.#o = options;
    this.#host = new URL(options.url).hostname;
    this.#resolve = options.resolve ?? resolveHost;
  }

  /**
   * Resolves the platform's hosts and the endpoint, once at start. A name that does not resolve yet is logged and
   * tried again before each workerd starts.
   *
   * @throws ConfigError when the endpoint resolves to an address something else of the platform listens on.
   */
  async check(): Promise<void> {
    const reserved = await Promise.all(this.#o.platformHosts.map((host) => this.#resolve(host).catch(() => [] as string[])));
    this.#reserved = [...new Set(reserved.flat())];
    let addresses: string[];
    try {
      addresses = await this.#resolve(this.#host);
    } catch (err) {
      this.#o.log.warn('the database endpoint does not resolve yet: apps cannot reach it until it does', { host: this.#host, err });
      return;
    }
    const shared = sharedAddresses(addresses, this.#reserved);
    if (shared.length > 0) {
      throw new ConfigError(
        `CW_RUNTIME_DATABASE_URL: ${this.#host} resolves to ${shared.join(', ')}, where other parts of the platform listen too, so apps could reach them; give cw-db's SQL listener an address of its own (its Service in a cluster, such as 127.0.0.2 on one machine)`,
      );
    }
    this.#last = addresses.map(hostCidr);
    this.#o.log.info('apps may reach the database endpoint', { host: this.#host, allow: this.#last });
  }

  /**
   * The endpoint's addresses as CIDRs, resolved again (a Service recreated gets a new ClusterIP); the previous
   * answer when resolution fails. Shared addresses are left out (and logged), whatever the name resolves to now.
   */
  async allow(): Promise<readonly string[]> {
    let addresses: string[];
    try {
      addresses = await this.#resolve(this.#host);
    } catch (err) {
      this.#o.log.warn('the database endpoint does not resolve: keeping the addresses it had', { host: this.#host, allow: this.#last, err });
      return this.#last;
    }
    const shared = sharedAddresses(addresses, this.#reserved);
    if (shared.length > 0) this.#o.log.error('the database endpoint resolves to addresses other parts of the platform listen on: not allowed', { host: this.#host, shared });
    this.#last = addresses.filter((a) => !shared.includes(a)).map(hostCidr);
    return this.#last;
  }
}
