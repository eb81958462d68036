import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { Source } from '../src/controller-runtime/source.ts';
import { objectKey } from '../src/kube/index.ts';
import { normalizeHost } from '../src/runtime-contract/hosts.ts';

/** App keys (`namespace/app`) naming one host: one as a string, the rare several as an array (a few bytes a host). */
type Keys = string | string[];

/**
 * Which apps a host may name, read from the informers rather than from what this replica has deployed: the
 * default host (`<app>.<project>.<baseDomain>`) off the name itself, and a deploy's host names and the
 * AppHostnames from indexes kept up to date by their events (only apps with such names take room in them). A
 * hint of what to deploy first for a request that arrived before the replica got to its app; whether the app may
 * have the name is still the reconcile's decision.
 */
export class AppHosts {
  readonly #suffix: string;
  /** Host → the apps its AppHostnames name. An AppHostname is named after its host, which never changes. */
  readonly #attached = new Map<string, Keys>();
  /** Host → the apps whose spec lists it, and app → the hosts its spec listed last (to take them back). */
  readonly #listed = new Map<string, Keys>();
  readonly #listedBy = new Map<string, readonly string[]>();

  constructor(baseDomain: string) {
    this.#suffix = `.${baseDomain.toLowerCase().replace(/\.$/, '')}`;
  }

  /** Keeps the indexes from these sources' events (subscribe before they list, so their first list is indexed). */
  follow(apps: Source<RuntimeApp>, hostnames?: Source<AppHostname>): void {
    apps.onChange((app) => {
      const key = objectKey(app);
      this.#list(key, apps.get(key)?.spec.hostnames ?? []);
    });
    hostnames?.onChange((hostname) => {
      const host = normalizeHost(hostname.spec?.hostname);
      const namespace = hostname.metadata?.namespace ?? '';
      if (host === undefined) return;
      const others = keysOf(this.#attached.get(host)).filter((key) => !key.startsWith(`${namespace}/`));
      const present = hostnames.get(objectKey(hostname));
      setKeys(this.#attached, host, present ? [...others, `${namespace}/${present.spec.appRef.name}`] : others);
    });
  }

  /** The app keys `host` (normalised) may name. */
  appsAt(host: string): string[] {
    const keys = new Set([...keysOf(this.#attached.get(host)), ...keysOf(this.#listed.get(host))]);
    if (host.endsWith(this.#suffix)) {
      const labels = host.slice(0, -this.#suffix.length).split('.');
      if (labels.length === 2 && labels[0] && labels[1]) keys.add(`${labels[1]}/${labels[0]}`);
    }
    return [...keys];
  }

  #list(key: string, raw: readonly string[]): void {
    for (const host of this.#listedBy.get(key) ?? []) {
      setKeys(
        this.#listed,
        host,
        keysOf(this.#listed.get(host)).filter((other) => other !== key),
      );
    }
    const hosts = [...new Set(raw.map(normalizeHost).filter((h): h is string => h !== undefined))];
    if (hosts.length === 0) {
      this.#listedBy.delete(key);
      return;
    }
    this.#listedBy.set(key, hosts);
    for (const host of hosts) setKeys(this.#listed, host, [...keysOf(this.#listed.get(host)), key]);
  }
}

function keysOf(keys: Keys | undefined): string[] {
  return keys === undefined ? [] : typeof keys === 'string' ? [keys] : keys;
}

function setKeys(index: Map<string, Keys>, host: string, keys: string[]): void {
  if (keys.length === 0) index.delete(host);
  else index.set(host, keys.length === 1 ? (keys[0] ?? '') : keys);
}
