import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { Source } from '../src/controller-runtime/source.ts';
import { objectKey } from '../src/kube/index.ts';
import { normalizeHost } from '../src/runtime-contract/hosts.ts';

/**
 * Which apps a host may name, read from the informers rather than from what this replica has deployed: the
 * default host (`<app>.<project>.<baseDomain>`) off the name itself, a deploy's host names and the AppHostnames
 * from an index kept up to date by their events (only apps with such names take room in it). A hint of what to
 * deploy first for a request that arrived before the replica got to its app; whether the app may have the name
 * is still the reconcile's decision.
 */
export class AppHosts {
  readonly #suffix: string;
  /** Host → the sources naming it (an app's spec, an AppHostname), each with its app's key. */
  readonly #byHost = new Map<string, Map<string, string>>();
  /** Source → the hosts it named last, to take them back when it changes or goes. */
  readonly #named = new Map<string, readonly string[]>();

  constructor(baseDomain: string) {
    this.#suffix = `.${baseDomain.toLowerCase().replace(/\.$/, '')}`;
  }

  /** Keeps the index from these sources' events (subscribe before they list, so their first list is indexed). */
  follow(apps: Source<RuntimeApp>, hostnames?: Source<AppHostname>): void {
    apps.onChange((app) => {
      const key = objectKey(app);
      const present = apps.get(key);
      this.#index(`app ${key}`, key, present?.spec.hostnames ?? []);
    });
    hostnames?.onChange((hostname) => {
      const key = objectKey(hostname);
      const present = hostnames.get(key);
      const app = `${hostname.metadata?.namespace ?? ''}/${hostname.spec?.appRef?.name ?? ''}`;
      this.#index(`hostname ${key}`, app, present ? [present.spec.hostname] : []);
    });
  }

  /** The app keys `host` (normalised) may name. */
  appsAt(host: string): string[] {
    const keys = new Set(this.#byHost.get(host)?.values() ?? []);
    if (host.endsWith(this.#suffix)) {
      const labels = host.slice(0, -this.#suffix.length).split('.');
      if (labels.length === 2 && labels[0] && labels[1]) keys.add(`${labels[1]}/${labels[0]}`);
    }
    return [...keys];
  }

  #index(source: string, app: string, raw: readonly string[]): void {
    for (const host of this.#named.get(source) ?? []) {
      const naming = this.#byHost.get(host);
      naming?.delete(source);
      if (naming?.size === 0) this.#byHost.delete(host);
    }
    const hosts = [...new Set(raw.map(normalizeHost).filter((h): h is string => h !== undefined))];
    if (hosts.length === 0) {
      this.#named.delete(source);
      return;
    }
    this.#named.set(source, hosts);
    for (const host of hosts) {
      const naming = this.#byHost.get(host) ?? new Map<string, string>();
      naming.set(source, app);
      this.#byHost.set(host, naming);
    }
  }
}
