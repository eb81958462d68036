import { createHash } from 'node:crypto';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { isInZone, relativeName } from '../../../src/dns/names.ts';
import { domainServes } from '../../../src/platform/host-admission.ts';
import { isAlreadyExists, isNotFound, objectClient, type Informer, type KubeConnection } from '../../../src/kube/index.ts';
import { DNS_RECORDS } from '../../../src/platform/resources.ts';

/** Where one certificate's DNS-01 TXT records go. */
export interface Dns01Zone {
  /** Makes the TXT record set at `fqdn` hold `values`; answers whether the zone has it so (then the CA may look). */
  publish(fqdn: string, values: readonly string[]): Promise<boolean>;
}

/** The DNS-01 side of issuance: the zone a certificate's records go in, and their removal once the order ends. */
export interface Dns01Answers {
  zoneFor(cert: TlsCertificate, now: Date): { zone: Dns01Zone } | { problem: string };
  remove(cert: TlsCertificate): Promise<void>;
}

/** TXT records of DNS-01 challenges are short-lived: a resolver must not keep an old value for long. */
export const CHALLENGE_TTL = 60;

/**
 * The DNS-01 answers of a TlsCertificate: one TXT DnsRecord per `_acme-challenge` name in the project domain of
 * `spec.domainRef`, owned by the certificate (garbage-collected with it), written to the zone by the ProjectDomain
 * controller like any record. The certificate controller writes their spec; it deletes them once the order ends.
 */
export class Dns01Records implements Dns01Answers {
  readonly #client;
  readonly #records: Informer<DnsRecord>;
  readonly #domains: Informer<ProjectDomain>;

  constructor(kube: KubeConnection, records: Informer<DnsRecord>, domains: Informer<ProjectDomain>) {
    this.#client = objectClient<DnsRecord>(kube, DNS_RECORDS);
    this.#records = records;
    this.#domains = domains;
  }

  /** The zone the certificate's TXT records go in (its project domain's), or why there is none that may hold them. */
  zoneFor(cert: TlsCertificate, now: Date): { zone: Dns01Zone } | { problem: string } {
    const found = this.#domainFor(cert, now);
    if ('problem' in found) return found;
    return { zone: { publish: (fqdn, values) => this.#publish(cert, found.domain, fqdn, values) } };
  }

  #domainFor(cert: TlsCertificate, now: Date): { domain: ProjectDomain } | { problem: string } {
    const ref = cert.spec.domainRef?.name;
    if (!ref) return { problem: 'A dns-01 certificate names its project domain in spec.domainRef.' };
    const domain = this.#domains.get(`${cert.metadata?.namespace}/${ref}`);
    if (!domain || !domainServes(domain, now)) return { problem: `The project domain ${ref} is not delegated to its zone (or does not exist): its TXT records would not be seen.` };
    const outside = cert.spec.dnsNames.find((n) => !isInZone(n.replace(/^\*\./, ''), domain.spec.domain));
    if (outside) return { problem: `${outside} is not in the project domain ${domain.spec.domain}.` };
    return { domain };
  }

  /**
   * Makes the TXT record at `fqdn` hold `values`; answers whether the zone has it so (the record's `Ready`
   * for its current generation), so the CA is told to look only then.
   */
  async #publish(cert: TlsCertificate, domain: ProjectDomain, fqdn: string, values: readonly string[]): Promise<boolean> {
    const namespace = cert.metadata?.namespace ?? '';
    const name = recordName(cert, fqdn);
    const spec = { domainRef: { name: domain.metadata?.name ?? '' }, name: relativeName(fqdn, domain.spec.domain), type: 'TXT' as const, values: [...values].sort(), ttl: CHALLENGE_TTL };
    const existing = this.#records.get(`${namespace}/${name}`);
    if (!existing) {
      await this.#client
        .create({
          apiVersion: API_VERSION,
          kind: 'DnsRecord',
          metadata: {
            namespace,
            name,
            ...(domain.metadata?.labels ? { labels: domain.metadata.labels } : {}),
            ownerReferences: [{ apiVersion: API_VERSION, kind: 'TlsCertificate', name: cert.metadata?.name ?? '', uid: cert.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
          },
          spec,
        })
        .catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
      return false;
    }
    if (existing.spec.values.join('\n') !== spec.values.join('\n')) {
      await this.#client.patch(namespace, name, { spec: { values: spec.values } }, 'merge');
      return false;
    }
    const ready = findCondition(existing.status?.conditions, 'Ready');
    return ready?.status === 'True' && existing.status?.observedGeneration === existing.metadata?.generation;
  }

  /** Deletes every TXT record of the certificate (the order ended). */
  async remove(cert: TlsCertificate): Promise<void> {
    const uid = cert.metadata?.uid;
    for (const record of this.#records.list(cert.metadata?.namespace)) {
      if (record.metadata?.namespace !== cert.metadata?.namespace || !record.metadata?.ownerReferences?.some((ref) => ref.uid === uid)) continue;
      await this.#client.delete(record.metadata?.namespace ?? '', record.metadata?.name ?? '').catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }
}

/** One record per certificate and name: `acme-<digest>`, a valid object name whatever the name's length. */
function recordName(cert: TlsCertificate, fqdn: string): string {
  return `acme-${createHash('sha256').update(`${cert.metadata?.uid}/${fqdn}`).digest('hex').slice(0, 24)}`;
}
