import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import type { Build } from '../../src/apis/v1alpha1/build.ts';
import type { DnsRecord } from '../../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../src/apis/v1alpha1/runtime-app.ts';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import type { InformerFactory, KubeConnection } from '../../src/kube/index.ts';
import { AppStore } from '../../src/platform/app-store.ts';
import { APP_HOSTNAMES, BUILDS, DNS_RECORDS, PROJECT_DOMAINS, RUNTIME_APPS, TLS_CERTIFICATES } from '../../src/platform/resources.ts';
import { AppHostnames } from './app-hostnames.ts';
import type { RuntimeTarget } from '../../src/dns/app-records.ts';
import { DnsRecords } from '../../src/platform/domains/dns-records.ts';
import { DomainStore } from '../../src/platform/domains/domain-store.ts';
import { ProjectDomains } from '../../src/platform/domains/project-domains.ts';
import { TlsCertificates } from '../../src/platform/domains/tls-certificates.ts';

export interface DomainServices {
  domains: ProjectDomains;
  records: DnsRecords;
  hostnames: AppHostnames;
}

/**
 * Project domains, their records and app hostnames on shared caches (the informer factory hands out one
 * informer per kind, so the app services' caches are reused). Call before `informers.start()`.
 */
export function createDomainServices(
  conn: KubeConnection,
  informers: InformerFactory,
  options: {
    /** Where the runtime takes traffic (what hostname records point at); the API needs no DNS provider. */
    settings: { readonly runtimeTarget: RuntimeTarget };
    baseDomain: string;
    /** Default `MAX_RECORDS_PER_DOMAIN`. */
    maxRecordsPerDomain?: number | undefined;
    /** How long a request waits for the controllers' answer; default `CONTROLLER_ANSWER_MS`. */
    answerWithinMs?: number | undefined;
  },
): DomainServices {
  const store = new DomainStore(conn, {
    domains: informers.informer<ProjectDomain>(PROJECT_DOMAINS),
    records: informers.informer<DnsRecord>(DNS_RECORDS),
    hostnames: informers.informer<AppHostname>(APP_HOSTNAMES),
  });
  // The operator's certificates, read for the views' `tls` (the API never writes them).
  const certificates = new TlsCertificates(informers.informer<TlsCertificate>(TLS_CERTIFICATES));
  const apps = new AppStore(conn, informers.informer<RuntimeApp>(RUNTIME_APPS), informers.informer<Build>(BUILDS));
  const baseDomain = options.baseDomain.toLowerCase();
  const answerWithinMs = options.answerWithinMs;
  return {
    domains: new ProjectDomains({ store, certificates, baseDomain, ...(answerWithinMs !== undefined ? { answerWithinMs } : {}) }),
    records: new DnsRecords(store, { maxRecords: options.maxRecordsPerDomain, answerWithinMs }),
    hostnames: new AppHostnames({ store, certificates, apps, settings: options.settings, baseDomain, answerWithinMs }),
  };
}
