import { defaultHost, defaultHostOwner, normalizeHost } from './hosts.ts';
import type { RuntimeLogger } from './log.ts';

/** What an app asks to be routed on: its project, its name and its other host names. */
export interface HostsAsked {
  readonly project: string;
  readonly appId: string;
  readonly hostnames: readonly string[];
}

/** The other names an app asks for beyond its default host (normalised, sorted, not empty). */
type Names = readonly string[];

/**
 * Host → app for the apps routed, kept up to date one app at a time (`set`) instead of computed again over every
 * app whenever one changes, which made a replica's first pass over 100,000 apps quadratic: every app its default
 * host; a name an app asks for (deploy host names, active AppHostnames) to that app if it is the only one asking and
 * the name is no app's default host. A name several apps ask for goes to none of them, with a warning: which app
 * answers a name must not depend on which asked first, on this replica's age or on its start order (every replica
 * decides alike). Across projects the admission rule (src/platform/host-admission.ts) has already given each name
 * to one project; this is the same decision within one project, whose two apps bound the same name (the API
 * refuses that; `kubectl apply` cannot). Read per request by the entry point's router, and per app by what the
 * engine reports; the operator keeps one of every app too, for the status's host names (`onMoved` names the apps
 * whose hosts a change moved).
 *
 * Most apps ask for their default host alone, and every replica routes every app: such an app costs one set entry,
 * its default host read off the name asked for (`defaultHostOwner`), not kept as a string in four maps.
 */
export class HostAssignment {
  readonly #baseDomain: string;
  readonly #log: RuntimeLogger;
  /** Every app routed. */
  readonly #routed = new Set<string>();
  /** The apps asking for names beyond their default host, with those names. */
  readonly #names = new Map<string, Names>();
  /** Other name → the app asking for it, or the apps (a name contested): one string is the common case, and lighter. */
  readonly #asking = new Map<string, string | Set<string>>();
  /** Other name → the app it routes to (a default host is its app's, and is not here). */
  readonly #owners = new Map<string, string>();
  /** App → the other names routed to it. */
  readonly #owned = new Map<string, string[]>();
  readonly #onMoved: ((key: string) => void) | undefined;

  constructor(baseDomain: string, log: RuntimeLogger, onMoved?: (key: string) => void) {
    this.#baseDomain = baseDomain;
    this.#log = log;
    this.#onMoved = onMoved;
  }

  /** The app `key` is routed as `app` asks (`undefined`: not routed); nothing moves if its hosts did not change. */
  set(key: string, app: HostsAsked | undefined): void {
    const wasRouted = this.#routed.has(key);
    const before = this.#names.get(key) ?? [];
    const names = app ? this.#namesOf(app) : [];
    if (wasRouted === (app !== undefined) && sameNames(before, names)) return;
    const touched = new Set<string>();
    for (const name of before) {
      this.#unask(name, key);
      touched.add(name);
    }
    if (app) this.#routed.add(key);
    else this.#routed.delete(key);
    if (names.length > 0) this.#names.set(key, names);
    else this.#names.delete(key);
    for (const name of names) {
      this.#ask(name, key);
      touched.add(name);
    }
    // Its default host coming or going decides a name another app may ask for.
    if (wasRouted !== (app !== undefined)) touched.add(this.#defaultHostOf(key));
    for (const host of touched) this.#settle(host);
  }

  /** The app `host` (normalised) routes to. */
  get(host: string): string | undefined {
    return this.#defaultOwner(host) ?? this.#owners.get(host);
  }

  /** The apps `host` (normalised) routes to or that ask for it (several when it is contested). */
  claimants(host: string): string[] {
    const asking = this.#asking.get(host);
    const keys = new Set(asking === undefined ? [] : typeof asking === 'string' ? [asking] : asking);
    const owner = this.get(host);
    if (owner !== undefined) keys.add(owner);
    return [...keys];
  }

  /** The hosts routed to `key`: its default host, then its other names in no particular order. */
  hostsRoutedTo(key: string): readonly string[] {
    if (!this.#routed.has(key)) return [];
    const owned = this.#owned.get(key);
    return owned ? [this.#defaultHostOf(key), ...owned] : [this.#defaultHostOf(key)];
  }

  /** The hosts of `key`, its default host first, then the others sorted. */
  hostsOf(key: string, defaultHostName: string): string[] {
    const rest = [...this.hostsRoutedTo(key)].filter((host) => host !== defaultHostName);
    return [defaultHostName, ...rest.sort()];
  }

  #defaultHostOf(key: string): string {
    const slash = key.indexOf('/');
    return defaultHost(key.slice(0, slash), key.slice(slash + 1), this.#baseDomain);
  }

  /**
   * The app routed whose default host `host` is, if any. Read off the name: app ids and projects are DNS labels (the
   * engine refuses other deployments), so a default host always parses back to its app.
   */
  #defaultOwner(host: string): string | undefined {
    const owner = defaultHostOwner(host, this.#baseDomain);
    const key = owner && `${owner.project}/${owner.appId}`;
    return key !== undefined && this.#routed.has(key) && this.#defaultHostOf(key) === host ? key : undefined;
  }

  #namesOf(app: HostsAsked): Names {
    const own = defaultHost(app.project, app.appId, this.#baseDomain);
    return [...new Set(app.hostnames.map(normalizeHost).filter((h): h is string => h !== undefined && h !== own))].sort();
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

  /** Decides `host` again after a claim on it changed: an app's default host is its own, else the one app asking has it. */
  #settle(host: string): void {
    const asking = this.#asking.get(host);
    const isDefault = this.#defaultOwner(host) !== undefined;
    const owner = !isDefault && typeof asking === 'string' ? asking : undefined;
    const was = this.#owners.get(host);
    if (owner === was) return;
    if (was !== undefined) {
      const owned = (this.#owned.get(was) ?? []).filter((h) => h !== host);
      if (owned.length > 0) this.#owned.set(was, owned);
      else this.#owned.delete(was);
      this.#owners.delete(host);
      this.#onMoved?.(was);
    }
    if (owner !== undefined) {
      this.#owners.set(host, owner);
      this.#owned.set(owner, [...(this.#owned.get(owner) ?? []), host]);
      this.#onMoved?.(owner);
    } else if (asking instanceof Set && !isDefault) {
      this.#log.warn('host names several apps ask for are served for none of them', { hosts: [host], apps: [...asking].sort() });
    }
  }
}

function sameNames(a: Names, b: Names): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
