import type { AppHostname } from '../../apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../apis/v1alpha1/runtime-app.ts';
import { holdsWrite, objectClient, objectKey, retryOnConflict, type Informer, type KubeConnection, type KubeObject, type ObjectClient } from '../../kube/index.ts';
import { containingDomain } from '../../dns/app-records.ts';
import { sharedIndex } from '../../kube/informer-index.ts';
import { normalizeName } from '../../dns/names.ts';
import { APP_HOSTNAMES, DNS_RECORDS, PROJECT_DOMAINS } from '../resources.ts';
import { DEFAULT_CACHE_WAIT_MS, settle } from '../settle.ts';
import { NotFoundError } from '../../errors.ts';
import { ancestorDomains, holdsName } from './domain-admission.ts';

export interface DomainCaches {
  readonly domains: Informer<ProjectDomain>;
  readonly records: Informer<DnsRecord>;
  readonly hostnames: Informer<AppHostname>;
}

const live = (o: KubeObject) => !o.metadata?.deletionTimestamp;

/**
 * ProjectDomains, DnsRecords and AppHostnames for the REST routes and the controllers: reads from informer
 * caches, writes to the apiserver, each write waiting (bounded) until the cache shows it, so a caller
 * reads its own writes. A project is the namespace of the same name. The status writes are the
 * controllers' alone (each kind's status has one writer); the REST routes only read status.
 */
export class DomainStore {
  readonly domainClient: ObjectClient<ProjectDomain>;
  readonly recordClient: ObjectClient<DnsRecord>;
  readonly hostnameClient: ObjectClient<AppHostname>;
  readonly caches: DomainCaches;
  readonly #cacheWaitMs: number;

  constructor(conn: KubeConnection, caches: DomainCaches, options: { cacheWaitMs?: number } = {}) {
    this.domainClient = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
    this.recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
    this.hostnameClient = objectClient<AppHostname>(conn, APP_HOSTNAMES);
    this.caches = caches;
    this.#cacheWaitMs = options.cacheWaitMs ?? DEFAULT_CACHE_WAIT_MS;
  }

  /** Every ProjectDomain of the project, soft-deleted ones included (cache). */
  allDomains(project: string): ProjectDomain[] {
    return this.caches.domains.list(project).filter((d) => d.metadata?.namespace === project && live(d));
  }

  /** The project's domains that are not soft-deleted (cache). */
  activeDomains(project: string): ProjectDomain[] {
    return this.allDomains(project).filter(isActive);
  }

  /**
   * Of the project's active domains holding `hostname`, the closest `managed` one (where its records go: a
   * closer domain still pending is not delegated, so the outer zone answers for the name) and the closest
   * of any state (to say why there is no managed one).
   */
  domainsHolding(project: string, hostname: string): { managed: ProjectDomain | undefined; closest: ProjectDomain | undefined } {
    const holding = this.activeDomains(project).map((d) => ({ domain: d.spec.domain, d }));
    return {
      managed: containingDomain(
        hostname,
        holding.filter(({ d }) => d.status?.state === 'managed'),
      )?.d,
      closest: containingDomain(hostname, holding)?.d,
    };
  }

  /**
   * Domains named `domain` in any project whose claim still holds (cache), oldest first: one refused the name, or
   * challenging an unproven claim on it, is not its holder, however old.
   */
  holders(domain: string): ProjectDomain[] {
    return this.domainsNamed(domain).filter(holdsName).sort(byAge);
  }

  /** Every domain named `domain`, in any project and any state (cache), from an index of the cache's events. */
  domainsNamed(domain: string): ProjectDomain[] {
    return sharedIndex(this.caches.domains, 'spec.domain', (d) => [d.spec.domain]).objects(domain);
  }

  /** Domains strictly inside `domain`, in any project, whose claim still holds (cache). */
  holdersBelow(domain: string): ProjectDomain[] {
    return sharedIndex(this.caches.domains, 'spec.domain ancestors', (d) => ancestorDomains(d.spec.domain))
      .objects(domain)
      .filter(holdsName);
  }

  /** Active domains still waiting for their delegation that `userId` added (by the API's annotation), in every project. */
  pendingDomainsAddedBy(userId: string, annotation: string): ProjectDomain[] {
    return this.caches.domains.list().filter((d) => live(d) && isActive(d) && d.status?.state !== 'managed' && d.metadata?.annotations?.[annotation] === userId);
  }

  /** The project's active domain named `domain` (as typed: case and a trailing dot do not matter). @throws NotFoundError */
  domain(project: string, domain: string): ProjectDomain {
    const name = normalizeName(domain.trim());
    const found = this.activeDomains(project).find((d) => d.spec.domain === name);
    if (!found) throw new NotFoundError(`Project ${project} has no domain ${name}.`);
    return found;
  }

  /** The DnsRecords of a ProjectDomain (cache). */
  recordsOf(domain: ProjectDomain): DnsRecord[] {
    const { namespace, name } = domain.metadata ?? {};
    return this.caches.records.list(namespace).filter((r) => r.metadata?.namespace === namespace && r.spec.domainRef.name === name && live(r));
  }

  /**
   * How many host names `app` is served on besides its default host and `except`: its deploy's, and its
   * active AppHostnames (cache). What the limit of host names an app may have counts.
   */
  servedHostnameCount(app: RuntimeApp, except: string): number {
    const active = this.hostnames(app.metadata?.namespace ?? '')
      .filter((h) => h.spec.appRef.name === app.metadata?.name && h.status?.state === 'active')
      .map((h) => h.spec.hostname);
    return new Set([...(app.spec.hostnames ?? []), ...active].filter((h) => h !== except)).size;
  }

  /** The project's AppHostnames (cache). */
  hostnames(project: string): AppHostname[] {
    return this.caches.hostnames.list(project).filter((h) => h.metadata?.namespace === project && live(h));
  }

  /** AppHostnames for `hostname` in any project (cache). */
  hostnamesNamed(hostname: string): AppHostname[] {
    return hostnamesByName(this.caches.hostnames)(hostname).filter(live);
  }

  /**
   * Writes the status computed by `change` from the live object, conditional on its resourceVersion and
   * retried after a conflict (the object's spec or metadata may change meanwhile). `change` answers `undefined` to write
   * nothing. Answers the object as written (or as read when nothing was written).
   */
  updateDomainStatus(domain: ProjectDomain, change: (live: ProjectDomain) => ProjectDomain['status'] | undefined): Promise<ProjectDomain> {
    return this.#updateStatus(this.domainClient, this.caches.domains, domain, `The domain ${domain.spec.domain} is gone.`, change);
  }

  /** The same for an AppHostname. */
  updateHostnameStatus(hostname: AppHostname, change: (live: AppHostname) => AppHostname['status'] | undefined): Promise<AppHostname> {
    return this.#updateStatus(this.hostnameClient, this.caches.hostnames, hostname, `The hostname ${hostname.spec.hostname} is no longer attached.`, change);
  }

  #updateStatus<T extends KubeObject & { status?: unknown }>(client: ObjectClient<T>, cache: Informer<T>, obj: T, gone: string, change: (live: T) => T['status'] | undefined): Promise<T> {
    const write = async (current: T, status: NonNullable<T['status']>): Promise<T> => {
      const written = await client.replaceStatus({ ...current, status });
      await this.settleObject(cache, written);
      return written;
    };
    // The first try writes on the caller's copy (the cache's, as a rule) at its resourceVersion, a read saved per
    // write at scale: a conflict says it was stale. Only a write is taken from it: "nothing to change" is decided
    // on the object as it is now, read afresh, as every retry is.
    let first = obj.metadata?.resourceVersion !== undefined;
    return retryOnConflict(async () => {
      if (first) {
        first = false;
        const status = change(obj);
        if (status !== undefined && status !== null) return write(obj, status);
      }
      const current = await client.get(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
      if (!current || current.metadata?.uid !== obj.metadata?.uid) throw new NotFoundError(gone);
      const status = change(current);
      return status === undefined || status === null ? current : write(current, status);
    });
  }

  /** Resolves once `cache` holds `written` at its resourceVersion or later (bounded). */
  settleObject<T extends KubeObject>(cache: Informer<T>, written: T): Promise<void> {
    return settle(cache, objectKey(written), holdsWrite(written), this.#cacheWaitMs);
  }
}

/**
 * AppHostnames by host name across every project, from the cache's shared index (built on first use, kept by its
 * events): an attach or a deploy naming a custom host asks it, where a walk over every AppHostname of the
 * cluster (one an app at the scale bench's 100,000) grew with the installation.
 */
export function hostnamesByName(cache: Informer<AppHostname>): (hostname: string) => AppHostname[] {
  return (hostname) => sharedIndex(cache, 'spec.hostname', (h) => [h.spec.hostname]).objects(hostname);
}

/** Not soft-deleted. */
export function isActive(domain: ProjectDomain): boolean {
  return domain.spec.deleted !== true;
}

/** Oldest first; the name breaks ties, so every process picks the same winner. */
export function byAge(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}
