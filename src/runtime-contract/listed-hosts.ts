import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { objectKey } from '../kube/types.ts';
import { normalizeHost } from './hosts.ts';

/**
 * Host → app keys (`namespace/app`): one as a string, the rare several as an array, so an index of every host
 * of 100,000 apps costs a few bytes a host.
 */
export class HostKeys {
  readonly #index = new Map<string, string | string[]>();

  keys(host: string): string[] {
    const keys = this.#index.get(host);
    return keys === undefined ? [] : typeof keys === 'string' ? [keys] : keys;
  }

  set(host: string, keys: readonly string[]): void {
    if (keys.length === 0) this.#index.delete(host);
    else this.#index.set(host, keys.length === 1 ? (keys[0] ?? '') : [...keys]);
  }
}

/** What {@link ListedHosts} reads its apps from: an informer, or the controller runtime's source. */
export interface AppsSource {
  onChange(handler: (app: RuntimeApp) => void): unknown;
  get(key: string): RuntimeApp | undefined;
}

/**
 * Which apps' specs list each host name (`spec.hostnames`, normalised), kept up to date by the apps' events: a
 * lookup by host where a scan of every app of the cluster would grow with the installation.
 */
export class ListedHosts {
  readonly #listed = new HostKeys();
  /** App → the hosts its spec listed last, to take them back when it changes. */
  readonly #listedBy = new Map<string, readonly string[]>();

  /**
   * Follows `apps` from now on; `counts` says whether an app's names count (absent: all do). Subscribe before
   * the source lists, or pass the apps it holds already as `current`: both happen in one turn, so no change
   * falls between them.
   */
  follow(apps: AppsSource, options: { counts?: (app: RuntimeApp) => boolean; current?: readonly RuntimeApp[] } = {}): void {
    const counts = options.counts ?? (() => true);
    const update = (key: string): void => {
      const app = apps.get(key);
      this.list(key, app !== undefined && counts(app) ? (app.spec.hostnames ?? []) : []);
    };
    for (const app of options.current ?? []) update(objectKey(app));
    apps.onChange((app) => update(objectKey(app)));
  }

  /** The keys of the apps whose spec lists `host` (normalised). */
  appsListing(host: string): string[] {
    return this.#listed.keys(host);
  }

  /** Records that the app `key` lists `hostnames` now (none: it lists nothing, or is gone). */
  list(key: string, hostnames: readonly string[]): void {
    for (const host of this.#listedBy.get(key) ?? []) {
      this.#listed.set(
        host,
        this.#listed.keys(host).filter((other) => other !== key),
      );
    }
    const hosts = [...new Set(hostnames.map(normalizeHost).filter((h): h is string => h !== undefined))];
    if (hosts.length === 0) {
      this.#listedBy.delete(key);
      return;
    }
    this.#listedBy.set(key, hosts);
    for (const host of hosts) this.#listed.set(host, [...this.#listed.keys(host), key]);
  }
}
