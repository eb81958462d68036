import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import { objectClient, type KubeConnection } from '../src/kube/index.ts';
import { HOSTNAME_PATTERN } from '../src/apis/v1alpha1/strings.ts';
import { isInZone } from '../src/dns/names.ts';
import { factsFromClaims, type ClaimSources } from '../src/platform/claim-facts.ts';
import { nameHolder } from '../src/platform/host-admission.ts';
import { APP_HOSTNAMES, HOSTNAME_CLAIMS } from '../src/platform/resources.ts';
import { BoundedTurns } from './bounded-turns.ts';
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
/** Reads in flight at once, reads waiting for a turn (past that a read is refused at once), and each one's bound. */
const CONCURRENCY = 8;
const MAX_WAITING = 256;
const READ_TIMEOUT_MS = 10_000;
/** The names a HostnameClaim or an AppHostname may have (the CRDs' own pattern): any other asks for no read. */
const HOSTNAME = new RegExp(HOSTNAME_PATTERN);

/** What one read of a host found. */
interface Found {
  readonly claim: HostnameClaim | undefined;
  readonly attachment: AppHostname | undefined;
}

/**
 * The name claims a replica's host admission reads ({@link ClaimSources}), for a replica that takes traffic before
 * it has listed the objects kept one per custom host name (HostnameClaims and AppHostnames: 100,000 each where
 * every app has one, a minute to list on a busy apiserver). Until both informers have listed, a host asked for is
 * {@link prepare}d: its claim and, in the project holding it, its AppHostname are read by name, and the host is
 * decided on what that read found ({@link prepare}'s view); the reads are remembered for a few seconds, in which
 * {@link sources} answers from them too. Once both have listed, the caches answer. Domains and their claims are
 * listed before traffic as before.
 */
export class NamesOnDemand {
  readonly #o: NamesOnDemandOptions;
  readonly #now: () => number;
  readonly #baseDomain: string;
  /** Reads settled, by host, each until its time (a newer read replaces one only once it has landed). */
  readonly #known = new Map<string, Found & { readonly until: number }>();
  readonly #inFlight = new Map<string, Promise<Found>>();
  readonly #turns = new BoundedTurns(CONCURRENCY, MAX_WAITING);
  /** What admission reads: the caches once listed, else the reads of the last few seconds. */
  readonly sources: ClaimSources;

  constructor(options: NamesOnDemandOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#baseDomain = options.listed.baseDomain.toLowerCase().replace(/\.$/, '');
    const { hostnameClaims, hostnames } = options;
    const fresh = (host: string) => {
      const known = this.#known.get(host);
      return known && known.until > this.#now() ? known : undefined;
    };
    this.sources = this.#view(
      (name) => (this.listed() ? hostnameClaims.get(name) : fresh(name)?.claim),
      (namespace) =>
        this.listed()
          ? hostnames.list(namespace)
          : [...this.#known.keys()].flatMap((host) => {
              const attachment = fresh(host)?.attachment;
              return attachment && (namespace === undefined || attachment.metadata?.namespace === namespace) ? [attachment] : [];
            }),
    );
  }

  /** Whether both per-host-name caches have listed (then nothing is read on demand). */
  listed(): boolean {
    return this.#o.hostnameClaims.hasSynced() && this.#o.hostnames.hasSynced();
  }

  /**
   * The claims to decide `host` (normalised) on while the caches have not listed: its objects as read within the
   * last few seconds, else as read now (reads of one host coalesced, at most 8 at a time and 256 waiting, each
   * bounded to 10 s). `undefined` once listed: the caches ({@link sources}) decide. Rejects when the read fails
   * or waits past its bound; a failed read is not remembered.
   */
  prepare(host: string): Promise<ClaimSources> | undefined {
    if (this.listed()) return undefined;
    const known = this.#known.get(host);
    if (known && known.until > this.#now()) return Promise.resolve(this.#viewOf(host, known));
    let reading = this.#inFlight.get(host);
    if (!reading) {
      reading = this.#read(host).finally(() => this.#inFlight.delete(host));
      this.#inFlight.set(host, reading);
    }
    return reading.then((found) => this.#viewOf(host, found));
  }

  /** The claims as `found` tells them for `host`, beside the domains listed. */
  #viewOf(host: string, found: Found): ClaimSources {
    return this.#view(
      (name) => (name === host ? found.claim : undefined),
      (namespace) => (found.attachment && (namespace === undefined || found.attachment.metadata?.namespace === namespace) ? [found.attachment] : []),
    );
  }

  #view(claim: (name: string) => HostnameClaim | undefined, attachments: (namespace?: string) => readonly AppHostname[]): ClaimSources {
    const { baseDomain, domains, domainClaims } = this.#o.listed;
    return { baseDomain, domains, domainClaims, hostnameClaims: { get: claim }, hostnames: { list: attachments } };
  }

  /** Reads the host's objects in a turn, and remembers what it found once it has landed. */
  async #read(host: string): Promise<Found> {
    if (!HOSTNAME.test(host) || host.length > 253) return { claim: undefined, attachment: undefined };
    if (this.#turns.full()) throw new Error('too many host names are being read at once');
    const found = await this.#turns.run(() => withTimeout(this.#readNow(host), READ_TIMEOUT_MS, `reading the claims of ${host} took more than ${READ_TIMEOUT_MS / 1000} s`));
    if (this.#known.size >= MAX_REMEMBERED) this.#forgetExpired();
    this.#known.set(host, { ...found, until: this.#now() + REMEMBER_MS });
    return found;
  }

  /**
   * The host's claim (none is read in the base domain, where the project is the name's part of it) and, where a
   * project holds the name (by that claim or a domain's), its AppHostname there.
   */
  async #readNow(host: string): Promise<Found> {
    const claim = isInZone(host, this.#baseDomain) ? undefined : await this.#o.reads.hostnameClaim(host);
    const facts = factsFromClaims(this.#viewOf(host, { claim, attachment: undefined }));
    const project = nameHolder(host, facts)?.project;
    return { claim, attachment: project === undefined ? undefined : await this.#o.reads.appHostname(project, host) };
  }

  /** Drops the reads past their time; if every one is still fresh, the oldest half (a flood of names in a few seconds). */
  #forgetExpired(): void {
    const now = this.#now();
    for (const [host, read] of this.#known) if (read.until <= now) this.#known.delete(host);
    if (this.#known.size < MAX_REMEMBERED) return;
    let drop = this.#known.size / 2;
    for (const host of this.#known.keys()) {
      if (drop-- <= 0) break;
      this.#known.delete(host);
    }
  }
}

/** `promise`, or a rejection with `message` once `ms` have passed. */
function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
