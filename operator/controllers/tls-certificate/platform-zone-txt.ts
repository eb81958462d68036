import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { isInZone } from '../../../src/dns/names.ts';
import type { DnsProvider } from '../../../src/dns/provider.ts';
import { CHALLENGE_TTL, type Dns01Answers, type Dns01Zone } from './dns01-records.ts';

/**
 * DNS-01 answers for a project's part of the base domain (`*.<project>.<base>`, its apps' default hosts), in
 * the installation's own zone for the base domain at the DNS provider: no project owns that zone, so the
 * operator writes `_acme-challenge.<project>.<base>` there itself (never through a DnsRecord a tenant could
 * edit), and only for names in the certificate's own project part.
 */
export class PlatformZoneTxt implements Dns01Answers {
  readonly #provider: DnsProvider;
  readonly #zoneId: string;
  readonly #baseDomain: string;

  constructor(provider: DnsProvider, zoneId: string, baseDomain: string) {
    this.#provider = provider;
    this.#zoneId = zoneId;
    this.#baseDomain = baseDomain;
  }

  zoneFor(cert: TlsCertificate): { zone: Dns01Zone } | { problem: string } {
    const part = `${cert.metadata?.namespace}.${this.#baseDomain}`;
    const outside = cert.spec.dnsNames.find((n) => !isInZone(n.replace(/^\*\./, ''), part));
    if (outside) return { problem: `${outside} is not in this project's part of the base domain (${part}), and no spec.domainRef names a project domain for it.` };
    return { zone: { publish: (fqdn, values) => this.#publish(fqdn, values) } };
  }

  async #publish(fqdn: string, values: readonly string[]): Promise<boolean> {
    const wanted = [...values].sort();
    const current = (await this.#provider.listRecords(this.#zoneId)).find((s) => s.name === fqdn && s.type === 'TXT');
    if (current && [...current.values].sort().join('\n') === wanted.join('\n')) return true;
    await this.#provider.applyChanges(this.#zoneId, { create: [], update: [{ name: fqdn, type: 'TXT', ttl: CHALLENGE_TTL, values: wanted }], delete: [] });
    return false;
  }

  async remove(cert: TlsCertificate): Promise<void> {
    const part = `${cert.metadata?.namespace}.${this.#baseDomain}`;
    const names = new Set(cert.spec.dnsNames.map((n) => `_acme-challenge.${n.replace(/^\*\./, '')}`).filter((n) => isInZone(n, part)));
    const sets = (await this.#provider.listRecords(this.#zoneId)).filter((s) => s.type === 'TXT' && names.has(s.name));
    if (sets.length > 0) await this.#provider.applyChanges(this.#zoneId, { create: [], update: [], delete: sets });
  }
}

/** dns-01 with `spec.domainRef` in the project domain's zone; without it, in the platform's base-domain zone (when there is one). */
export function dns01Answers(projectDomains: Dns01Answers | undefined, platform: Dns01Answers | undefined): Dns01Answers | undefined {
  if (!projectDomains && !platform) return undefined;
  const none = { problem: 'This installation has no zone for these names: name a project domain in spec.domainRef.' };
  return {
    zoneFor: (cert, now) => (cert.spec.domainRef ? (projectDomains?.zoneFor(cert, now) ?? none) : (platform?.zoneFor(cert, now) ?? none)),
    remove: async (cert) => {
      await projectDomains?.remove(cert);
      await platform?.remove(cert);
    },
  };
}
