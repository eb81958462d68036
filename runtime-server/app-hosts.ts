import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { Source } from '../src/controller-runtime/source.ts';
import { InformerIndex } from '../src/kube/informer-index.ts';
import { defaultHostOwner } from '../src/runtime-contract/hosts.ts';
import { appsNamed, appsNamedInZone, attachedHostOf, listedHostsOf } from '../src/runtime-contract/listed-hosts.ts';

/**
 * Which apps a host may name, read from the informers rather than from what this replica has deployed: the
 * default host (`<app>.<project>.<baseDomain>`) off the name itself, and a deploy's host names and the
 * AppHostnames from indexes kept up to date by their events (only apps with such names take room in them). A
 * hint of what to deploy first for a request that arrived before the replica got to its app; whether the app may
 * have the name is still the reconcile's decision.
 */
export class AppHosts {
  readonly #baseDomain: string;
  /** The AppHostnames by their host (an AppHostname is named after its host, which never changes). */
  #attached: InformerIndex<AppHostname> | undefined;
  /** The apps by the hosts their spec lists. */
  #listed: InformerIndex<RuntimeApp> | undefined;

  constructor(baseDomain: string) {
    this.#baseDomain = baseDomain.toLowerCase().replace(/\.$/, '');
  }

  /** Keeps the indexes from these sources' events (subscribe before they list, so their first list is indexed). */
  follow(apps: Source<RuntimeApp>, hostnames?: Source<AppHostname>): void {
    this.#listed = new InformerIndex(apps, listedHostsOf);
    if (hostnames) {
      this.#attached = new InformerIndex(hostnames, attachedHostOf);
    }
  }

  /** The app keys `host` (normalised) may name. */
  appsAt(host: string): string[] {
    const keys = appsNamed(host, this.#listed, this.#attached);
    const owner = defaultHostOwner(host, this.#baseDomain);
    if (owner) keys.add(`${owner.project}/${owner.appId}`);
    return [...keys];
  }

  /**
   * The app keys with a deploy host name or an AppHostname in `zone` (normalised): those a claim on the zone may
   * give a name or take one from. A walk over the custom host names indexed, not over every app.
   */
  appsInZone(zone: string): string[] {
    return [...appsNamedInZone(zone, this.#listed, this.#attached)];
  }
}
