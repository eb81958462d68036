import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { Source } from '../src/controller-runtime/source.ts';
import { objectKey } from '../src/kube/index.ts';
import { defaultHostOwner, normalizeHost } from '../src/runtime-contract/hosts.ts';
import { HostKeys, ListedHosts } from '../src/runtime-contract/listed-hosts.ts';

/**
 * Which apps a host may name, read from the informers rather than from what this replica has deployed: the
 * default host (`<app>.<project>.<baseDomain>`) off the name itself, and a deploy's host names and the
 * AppHostnames from indexes kept up to date by their events (only apps with such names take room in them). A
 * hint of what to deploy first for a request that arrived before the replica got to its app; whether the app may
 * have the name is still the reconcile's decision.
 */
export class AppHosts {
  readonly #baseDomain: string;
  /** Host → the apps its AppHostnames name. An AppHostname is named after its host, which never changes. */
  readonly #attached = new HostKeys();
  /** Host → the apps whose spec lists it. */
  readonly #listed = new ListedHosts();

  constructor(baseDomain: string) {
    this.#baseDomain = baseDomain.toLowerCase().replace(/\.$/, '');
  }

  /** Keeps the indexes from these sources' events (subscribe before they list, so their first list is indexed). */
  follow(apps: Source<RuntimeApp>, hostnames?: Source<AppHostname>): void {
    this.#listed.follow(apps);
    hostnames?.onChange((hostname) => {
      const host = normalizeHost(hostname.spec?.hostname);
      const namespace = hostname.metadata?.namespace ?? '';
      if (host === undefined) return;
      const others = this.#attached.keys(host).filter((key) => !key.startsWith(`${namespace}/`));
      const present = hostnames.get(objectKey(hostname));
      this.#attached.set(host, present ? [...others, `${namespace}/${present.spec.appRef.name}`] : others);
    });
  }

  /** The app keys `host` (normalised) may name. */
  appsAt(host: string): string[] {
    const keys = new Set([...this.#attached.keys(host), ...this.#listed.appsListing(host)]);
    const owner = defaultHostOwner(host, this.#baseDomain);
    if (owner) keys.add(`${owner.project}/${owner.appId}`);
    return [...keys];
  }
}
