// The data and the answers of a small authoritative zone standing in for a parent zone (a TLD such as
// `test.`) in development and tests: it delegates child domains to nameservers (so a delegation check can
// succeed or fail on demand) and holds a few A/AAAA/CNAME/TXT records (so the records an owner publishes for an
// external hostname can be resolved). Pure: parent-zone-server.ts puts it on the network.
import { isIPv4, isIPv6 } from 'node:net';
import { RCODE, txtRecordData, type DnsRecordData } from './dns-wire.ts';
import { isBelow, isInZone, normalizeName } from './names.ts';
import { hostValue, ipv4Value, ipv6Value } from './record-values.ts';

export type ParentZoneRecordType = 'A' | 'AAAA' | 'CNAME' | 'TXT';

export interface ParentZoneOptions {
  /** The zone's apex, for example `test`. */
  suffix: string;
  /** The zone's own nameserver name; default `ns.<suffix>`. */
  nameserver?: string;
  /** Address answered for the nameserver name (where the server listens). */
  nameserverAddress?: string;
  /** TTL of everything answered; default 60. */
  ttl?: number;
}

/** What to send back, before encoding. */
export interface ZoneAnswer {
  readonly rcode: number;
  readonly authoritative: boolean;
  readonly answers: DnsRecordData[];
  readonly authorities: DnsRecordData[];
  readonly additionals: DnsRecordData[];
}

const MAX_CNAME_CHAIN = 8;

export class ParentZone {
  readonly suffix: string;
  readonly nameserver: string;
  readonly #nameserverAddress: string | undefined;
  readonly #ttl: number;
  readonly #delegations = new Map<string, string[]>();
  readonly #records = new Map<string, Map<ParentZoneRecordType, string[]>>();
  #serial = 1;

  constructor(options: ParentZoneOptions) {
    this.suffix = normalizeName(options.suffix);
    if (this.suffix === '') throw new Error('the parent zone needs a suffix, for example "test"');
    this.nameserver = normalizeName(options.nameserver ?? `ns.${this.suffix}`);
    this.#nameserverAddress = options.nameserverAddress;
    this.#ttl = options.ttl ?? 60;
  }

  /** Delegates `domain` (strictly below the suffix) to `nameservers`, replacing any earlier delegation. */
  delegate(domain: string, nameservers: readonly string[]): void {
    const name = this.#childName(domain);
    const hosts = nameservers.map((ns) => {
      const check = hostValue(ns);
      if (!check.ok) throw new Error(`nameserver ${check.message}`);
      return check.value;
    });
    if (hosts.length === 0) throw new Error('a delegation needs at least one nameserver');
    this.#delegations.set(name, [...new Set(hosts)]);
    this.#serial++;
  }

  /** Removes the delegation of `domain`, if any. */
  undelegate(domain: string): void {
    this.#delegations.delete(this.#childName(domain));
    this.#serial++;
  }

  /** Sets the `type` records at `name` (in the zone) to `values`; an empty list removes them. */
  setRecord(name: string, type: ParentZoneRecordType, values: readonly string[]): void {
    const owner = normalizeName(name);
    if (!isInZone(owner, this.suffix)) throw new Error(`${owner} is not inside ${this.suffix}`);
    const canonical = values.map((v) => {
      const check = type === 'A' ? ipv4Value(v) : type === 'AAAA' ? ipv6Value(v) : type === 'CNAME' ? hostValue(v) : { ok: true as const, value: v };
      if (!check.ok) throw new Error(`${type} value ${check.message}`);
      return check.value;
    });
    const sets = this.#records.get(owner) ?? new Map<ParentZoneRecordType, string[]>();
    if (canonical.length === 0) sets.delete(type);
    else {
      const others = [...sets.keys()].filter((t) => t !== type);
      if ((type === 'CNAME' && others.length > 0) || (type !== 'CNAME' && sets.has('CNAME'))) {
        throw new Error(`${owner}: a CNAME must be the only record at its name`);
      }
      if (type === 'CNAME' && canonical.length !== 1) throw new Error(`${owner}: a CNAME has exactly one value`);
      sets.set(type, canonical);
    }
    if (sets.size === 0) this.#records.delete(owner);
    else this.#records.set(owner, sets);
    this.#serial++;
  }

  /** The answer to one question (RFC 1034 §4.3.2, without the parts an authoritative-only server skips). */
  answer(qname: string, qtype: string): ZoneAnswer {
    const name = normalizeName(qname);
    if (!isInZone(name, this.suffix)) return this.#reply(RCODE.REFUSED, false);
    const cut = this.#cutAbove(name);
    if (cut && !(qtype === 'DS' && name === cut)) return this.#referral(cut);
    if (cut) return this.#reply(RCODE.NOERROR, true, [], [this.#soa()]); // DS at the cut: we sign nothing

    const answers: DnsRecordData[] = [];
    const additionals: DnsRecordData[] = [];
    if (name === this.suffix && qtype === 'SOA') answers.push(this.#soa());
    if (name === this.suffix && qtype === 'NS') {
      answers.push({ type: 'NS', name, ttl: this.#ttl, data: this.nameserver });
      additionals.push(...this.#nameserverAddresses());
    }
    if (name === this.nameserver && (qtype === 'A' || qtype === 'AAAA')) {
      answers.push(...this.#nameserverAddresses().filter((a) => a.type === qtype));
    }
    answers.push(...this.#lookup(name, qtype, 0));
    if (answers.length > 0) return this.#reply(RCODE.NOERROR, true, answers, [], additionals);
    return this.#reply(this.#exists(name) ? RCODE.NOERROR : RCODE.NXDOMAIN, true, [], [this.#soa()]);
  }

  #lookup(name: string, qtype: string, depth: number): DnsRecordData[] {
    const sets = this.#records.get(name);
    if (!sets) return [];
    const exact = sets.get(qtype as ParentZoneRecordType);
    if (exact) return exact.map((v) => this.#record(name, qtype as ParentZoneRecordType, v));
    const cname = sets.get('CNAME')?.[0];
    if (cname === undefined || qtype === 'CNAME') return [];
    const chain = [this.#record(name, 'CNAME', cname)];
    const chased = depth < MAX_CNAME_CHAIN && isInZone(cname, this.suffix) && !this.#cutAbove(cname);
    return chased ? [...chain, ...this.#lookup(cname, qtype, depth + 1)] : chain;
  }

  #record(name: string, type: ParentZoneRecordType, value: string): DnsRecordData {
    if (type === 'TXT') return txtRecordData(name, this.#ttl, value);
    return { type, name, ttl: this.#ttl, data: value };
  }

  /** The highest delegated domain equal to or above `name` (a zone cut hides everything below it). */
  #cutAbove(name: string): string | undefined {
    const labels = name.split('.');
    const depth = this.suffix.split('.').length;
    for (let i = labels.length - depth - 1; i >= 0; i--) {
      const candidate = labels.slice(i).join('.');
      if (this.#delegations.has(candidate)) return candidate;
    }
    return undefined;
  }

  #referral(cut: string): ZoneAnswer {
    const nameservers = this.#delegations.get(cut) ?? [];
    const authorities: DnsRecordData[] = nameservers.map((ns) => ({ type: 'NS', name: cut, ttl: this.#ttl, data: ns }));
    // Glue: addresses we hold for in-zone nameserver names outside any cut.
    const glue = nameservers
      .filter((ns) => !this.#cutAbove(ns))
      .flatMap((ns) => [...this.#lookup(ns, 'A', MAX_CNAME_CHAIN), ...this.#lookup(ns, 'AAAA', MAX_CNAME_CHAIN)])
      .filter((r) => r.type === 'A' || r.type === 'AAAA');
    return this.#reply(RCODE.NOERROR, false, [], authorities, glue);
  }

  #exists(name: string): boolean {
    if (name === this.suffix || name === this.nameserver || this.#records.has(name)) return true;
    const below = (other: string) => isBelow(other, name);
    return [...this.#records.keys()].some(below) || [...this.#delegations.keys()].some(below) || below(this.nameserver);
  }

  #nameserverAddresses(): DnsRecordData[] {
    const address = this.#nameserverAddress;
    if (address && isIPv4(address)) return [{ type: 'A', name: this.nameserver, ttl: this.#ttl, data: address }];
    if (address && isIPv6(address)) return [{ type: 'AAAA', name: this.nameserver, ttl: this.#ttl, data: address }];
    return [];
  }

  #soa(): DnsRecordData {
    return {
      type: 'SOA',
      name: this.suffix,
      ttl: this.#ttl,
      data: {
        mname: this.nameserver,
        rname: `hostmaster.${this.suffix}`,
        serial: this.#serial,
        refresh: 3600,
        retry: 600,
        expire: 86_400,
        minimum: this.#ttl,
      },
    };
  }

  #reply(rcode: number, authoritative: boolean, answers: DnsRecordData[] = [], authorities: DnsRecordData[] = [], additionals: DnsRecordData[] = []): ZoneAnswer {
    return { rcode, authoritative, answers, authorities, additionals };
  }

  #childName(domain: string): string {
    const name = normalizeName(domain);
    if (!isBelow(name, this.suffix)) throw new Error(`${name} is not below ${this.suffix}`);
    return name;
  }
}
