import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import { objectClient, type KubeConnection } from '../src/kube/index.ts';
import { factsFromClaims, type ClaimSources } from '../src/platform/claim-facts.ts';
import { nameHolder } from '../src/platform/host-admission.ts';
import { APP_HOSTNAMES, HOSTNAME_CLAIMS } from '../src/platform/resources.ts';
import { projectAppHostname } from './cache-projections.ts';

/** Reads of one custom host name's objects from the apiserver: both kinds are named after the host. */
export interface NameReads {
  hostnameClaim(host: string): Promise<HostnameClaim | undefined>;
  appHostname(namespace: string, host: string): Promise<AppHostname | undefined>;
}

/** {@link NameReads} from the apiserver; AppHostnames only of `namespace` where the replica serves one (as its cache). */
export function nameReads(kube: KubeConnection, namespace?: string): NameReads {
  const claims = objectClient<HostnameClaim>(kube, HOSTNAME_CLAIMS);
  const hostnames = objectClient<AppHostname>(kube, APP_HOSTNAMES);
  return {
    hostnameClaim: (host) => claims.get('', host),
    appHostname: async (project, host) => {
      if (namespace !== undefined && project !== namespace) return undefined;
      const attachment = await hostnames.get(project, host);
      return attachment && projectAppHostname(attachment);
    },
  };
}

/** The two caches kept per custom host name, as informers: read once they have listed. */
interface NameCache<T> {
  hasSynced(): boolean;
  get(key: string): T | undefined;
  list(namespace?: string): readonly T[];
}

export interface NamesOnDemandOptions {
  /** The caches listed before traffic (one object per project domain, far fewer than host names). */
  readonly listed: Pick<ClaimSources, 'baseDomain' | 'domains' | 'domainClaims'>;
  readonly hostnameClaims: NameCache<HostnameClaim>;
  readonly hostnames: NameCache<AppHostname>;
  readonly reads: NameReads;
  readonly now?: () => number;
}

/** How long a host's objects as read are taken as known (as a project's apps are before the list). */
const REMEMBER_MS = 5_000;
/** Hosts remembered at most: a flood of made-up names must not grow it without end. */
const MAX_REMEMBERED = 10_000;

interface Read {
  readonly until: number;
  done: Promise<void>;
  claim?: HostnameClaim | undefined;
  attachment?: AppHostname | undefined;
}

/**
 * The name claims a replica's host admission reads ({@link ClaimSources}), for a replica that takes traffic before
 * it has listed the objects kept one per custom host name (HostnameClaims and AppHostnames: 100,000 each where
 * every app has one, a minute to list on a busy apiserver). Until both informers have listed, a host asked for is
 * {@link prepare}d: its claim and, in the project holding it, its AppHostname are read by name and remembered for a
 * few seconds, and the claims answer from those reads as they would from the caches; once both have listed, the
 * caches answer. Domains and their claims are listed before traffic as before.
 */
export class NamesOnDemand {
  readonly #o: NamesOnDemandOptions;
  readonly #now: () => number;
  readonly #reads = new Map<string, Read>();
  /** What admission reads: the caches once listed, else the reads of the hosts prepared. */
  readonly sources: ClaimSources;

  constructor(options: NamesOnDemandOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const { listed, hostnameClaims, hostnames } = options;
    this.sources = {
      baseDomain: listed.baseDomain,
      domains: listed.domains,
      domainClaims: listed.domainClaims,
      hostnameClaims: { get: (name) => (this.listed() ? hostnameClaims.get(name) : this.#reads.get(name)?.claim) },
      hostnames: {
        list: (namespace) =>
          this.listed()
            ? hostnames.list(namespace)
            : [...this.#reads.values()].flatMap((r) => (r.attachment && (namespace === undefined || r.attachment.metadata?.namespace === namespace) ? [r.attachment] : [])),
      },
    };
  }

  /** Whether both per-host-name caches have listed (then nothing is read on demand). */
  listed(): boolean {
    return this.#o.hostnameClaims.hasSynced() && this.#o.hostnames.hasSynced();
  }

  /**
   * Reads what admission needs to decide `host` (normalised) while the caches have not listed: `undefined` when
   * there is nothing to wait for (listed, or read within the last few seconds), else the reads, coalesced per host.
   * A read that fails rejects, and is not remembered.
   */
  prepare(host: string): Promise<void> | undefined {
    if (this.listed()) return undefined;
    const known = this.#reads.get(host);
    if (known && known.until > this.#now()) return known.done;
    if (this.#reads.size >= MAX_REMEMBERED) this.#forgetExpired();
    const read: Read = { until: this.#now() + REMEMBER_MS, done: Promise.resolve() };
    read.done = this.#read(host).then(
      (found) => void Object.assign(read, found),
      (err: unknown) => {
        if (this.#reads.get(host) === read) this.#reads.delete(host);
        throw err;
      },
    );
    this.#reads.set(host, read);
    return read.done;
  }

  /** The host's claim and, where a project holds the name (by that claim or a domain's), its AppHostname there. */
  async #read(host: string): Promise<Pick<Read, 'claim' | 'attachment'>> {
    const claim = await this.#o.reads.hostnameClaim(host);
    const facts = factsFromClaims({ ...this.sources, hostnameClaims: { get: (name) => (name === host ? claim : undefined) }, hostnames: undefined });
    const project = nameHolder(host, facts)?.project;
    return { claim, attachment: project === undefined ? undefined : await this.#o.reads.appHostname(project, host) };
  }

  /** Drops the reads past their time; if every one is still fresh, all of them (a flood of names in a few seconds). */
  #forgetExpired(): void {
    const now = this.#now();
    for (const [host, read] of this.#reads) if (read.until <= now) this.#reads.delete(host);
    if (this.#reads.size >= MAX_REMEMBERED) this.#reads.clear();
  }
}
