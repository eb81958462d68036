import { defaultHost, normalizeHost } from '../../src/runtime-contract/hosts.ts';
import type { RuntimeLogger } from '../../src/runtime-contract/log.ts';

/** What an app asks to be routed on: its project, its name and its other host names. */
export interface HostsAsked {
  readonly project: string;
  readonly appId: string;
  readonly hostnames: readonly string[];
}

/** What an app asks to be routed on: its default host and its other names (normalised, sorted). */
interface Claim {
  readonly defaultHost: string;
  readonly names: readonly string[];
}

/**
 * Host → app for the apps routed, kept up to date one app at a time (`set`) instead of computed again over every
 * app whenever one changes, which made a replica's first pass over 100,000 apps quadratic: every app its default
 * host; a name an app asks for (deploy host names, active AppHostnames) to that app if it is the only one asking and
 * the name is no app's default host. A name several apps ask for goes to none of them, with a warning: which app
 * answers a name must not depend on which asked first, on this replica's age or on its start order (every replica
 * decides alike). Across projects the admission rule (src/platform/host-admission.ts) has already given each name
 * to one project; this is the same decision within one project, whose two apps bound the same name (the API
 * refuses that; `kubectl apply` cannot). Read per request by the entry point's router, and per app by what the
 * engine reports.
 */
export class HostAssignment {
  readonly #baseDomain: string;
  readonly #log: RuntimeLogger;
  readonly #claims = new Map<string, Claim>();
  /** Default host → its app. */
  readonly #defaults = new Map<string, string>();
  /** Other name → the app asking for it, or the apps (a name contested): one string is the common case, and lighter. */
  readonly #asking = new Map<string, string | Set<string>>();
  /** Host → the app it routes to. */
  readonly #owners = new Map<string, string>();
  /** App → the hosts routed to it (a few each). */
  readonly #owned = new Map<string, string[]>();

  constructor(baseDomain: string, log: RuntimeLogger) {
    this.#baseDomain = baseDomain;
    this.#log = log;
  }

  /** The app `key` is routed as `app` asks (`undefined`: not routed); nothing moves if its hosts did not change. */
  set(key: string, app: HostsAsked | undefined): void {
    const before = this.#claims.get(key);
    const claim = app && this.#claimOf(app);
    if (sameClaim(before, claim)) return;
    const touched = new Set<string>();
    if (before) {
      if (this.#defaults.get(before.defaultHost) === key) this.#defaults.delete(before.defaultHost);
      touched.add(before.defaultHost);
      for (const name of before.names) {
        this.#unask(name, key);
        touched.add(name);
      }
    }
    if (claim) {
      this.#claims.set(key, claim);
      this.#defaults.set(claim.defaultHost, key);
      touched.add(claim.defaultHost);
      for (const name of claim.names) {
        this.#ask(name, key);
        touched.add(name);
      }
    } else {
      this.#claims.delete(key);
    }
    for (const host of touched) this.#settle(host);
  }

  /** The app `host` (normalised) routes to. */
  get(host: string): string | undefined {
    return this.#owners.get(host);
  }

  /** The hosts routed to `key`, in no particular order. */
  hostsRoutedTo(key: string): readonly string[] {
    return this.#owned.get(key) ?? [];
  }

  /** The hosts of `key`, its default host first, then the others sorted. */
  hostsOf(key: string, defaultHostName: string): string[] {
    const rest = [...this.hostsRoutedTo(key)].filter((host) => host !== defaultHostName);
    return [defaultHostName, ...rest.sort()];
  }

  #claimOf(app: HostsAsked): Claim {
    const own = defaultHost(app.project, app.appId, this.#baseDomain);
    const names = [...new Set(app.hostnames.map(normalizeHost).filter((h): h is string => h !== undefined && h !== own))].sort();
    return { defaultHost: own, names };
  }

  #ask(name: string, key: string): void {
    const asking = this.#asking.get(name);
    if (asking === undefined) this.#asking.set(name, key);
    else if (typeof asking === 'string') this.#asking.set(name, asking === key ? key : new Set([asking, key]));
    else asking.add(key);
  }

  #unask(name: string, key: string): void {
    const asking = this.#asking.get(name);
    if (asking === key) this.#asking.delete(name);
    else if (typeof asking !== 'string' && asking?.delete(key) && asking.size === 1) this.#asking.set(name, [...asking][0]!);
  }

  /** Decides `host` again after a claim on it changed. */
  #settle(host: string): void {
    const asking = this.#asking.get(host);
    const owner = this.#defaults.get(host) ?? (typeof asking === 'string' ? asking : undefined);
    const was = this.#owners.get(host);
    if (owner === was) return;
    if (was !== undefined) {
      const owned = (this.#owned.get(was) ?? []).filter((h) => h !== host);
      if (owned.length > 0) this.#owned.set(was, owned);
      else this.#owned.delete(was);
      this.#owners.delete(host);
    }
    if (owner !== undefined) {
      this.#owners.set(host, owner);
      this.#owned.set(owner, [...(this.#owned.get(owner) ?? []), host]);
    } else if (asking instanceof Set) {
      this.#log.warn('host names several apps ask for are served for none of them', { hosts: [host], apps: [...asking].sort() });
    }
  }
}

function sameClaim(a: Claim | undefined, b: Claim | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.defaultHost === b.defaultHost && a.names.length === b.names.length && a.names.every((name, i) => name === b.names[i]);
}
