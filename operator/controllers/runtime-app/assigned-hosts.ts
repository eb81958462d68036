import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { InformerIndex } from '../../../src/kube/informer-index.ts';
import { objectKey } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { factsFromClaims } from '../../../src/platform/claim-facts.ts';
import { DemotionTimers } from '../../../src/platform/demotion-timers.ts';
import { attachedHostnames, hostnamesByApp, isRouted, servable, type HostnamesByApp } from '../../../src/runtime-contract/asked-hosts.ts';
import { HostAssignment } from '../../../src/runtime-contract/host-assignment.ts';
import { defaultHost, normalizeHost } from '../../../src/runtime-contract/hosts.ts';
import { appsNamed, appsNamedInZone, attachedHostOf, hostnameAppKey, listedHostsOf } from '../../../src/runtime-contract/listed-hosts.ts';

/** A cache as read here: its events, and its objects by key or by namespace. */
interface Cache<T> {
  onChange(handler: (obj: T) => void): unknown;
  get(key: string): T | undefined;
  list(namespace?: string): readonly T[];
  /** An informer's: the status waits for it before it says hosts decided from it. */
  waitForSync?(signal?: AbortSignal): Promise<void>;
}

export interface AssignedHostsDeps {
  apps: Cache<RuntimeApp>;
  hostnames: Cache<AppHostname>;
  domains: Cache<ProjectDomain>;
  domainClaims: Cache<DomainClaim>;
  hostnameClaims: Cache<HostnameClaim>;
  baseDomain: string;
  log: Logger;
  /** Told each app whose hosts a change moved (its status says them). */
  onMoved: (key: string) => void;
}

/**
 * The host names each app is served on, decided by the operator as every runtime replica decides them: its
 * default host, and the names it asks for (deploy host names, active AppHostnames) that the claims let its project
 * serve and no other app of the project asks for (`HostAssignment`, the replicas' own), for every app routed
 * (`isRouted`, the replicas' rule too). The status says these, so a replica need not report an app's hosts, nor
 * hold an app it does not serve to say them. Each name is decided again from the objects that name it whenever one
 * of them changes (the apps, their AppHostnames, the claims, the project's domains, a domain's demotion grace
 * running out), as the replicas do, and the apps whose hosts moved are re-checked.
 */
export class AssignedHosts {
  readonly #deps: AssignedHostsDeps;
  readonly #assignment: HostAssignment;
  readonly #byListedHost: InformerIndex<RuntimeApp>;
  readonly #attachedByHost: InformerIndex<AppHostname>;
  readonly #attachedByApp: HostnamesByApp;
  readonly #demotions: DemotionTimers;

  constructor(deps: AssignedHostsDeps) {
    this.#deps = deps;
    this.#assignment = new HostAssignment(deps.baseDomain, deps.log, deps.onMoved);
    this.#byListedHost = new InformerIndex(deps.apps, listedHostsOf, deps.apps.list());
    this.#attachedByHost = new InformerIndex(deps.hostnames, attachedHostOf, deps.hostnames.list());
    this.#attachedByApp = hostnamesByApp(deps.hostnames);
    this.#demotions = new DemotionTimers(
      (project) => this.#decideIn(project),
      (key) => deps.domains.get(key),
    );
    for (const domain of deps.domains.list()) this.#demotions.seen(domain);
    for (const app of deps.apps.list()) this.decide(objectKey(app));
    deps.apps.onChange((app) => this.decide(objectKey(app)));
    deps.hostnames.onChange((h) => {
      this.#decideOwnerOf(h);
      // Its name's admission for the project changed too: another app may ask for it as a deploy host name.
      this.#decideNamed(normalizeHost(h.spec?.hostname) ?? '');
    });
    deps.hostnameClaims.onChange((claim) => this.#decideNamed(claim.metadata?.name ?? ''));
    deps.domainClaims.onChange((claim) => this.#decideUnder(claim.metadata?.name ?? ''));
    deps.domains.onChange((domain) => {
      this.#demotions.seen(domain, !deps.domains.get(objectKey(domain)));
      if (domain.metadata?.namespace) this.#decideIn(domain.metadata.namespace);
    });
  }

  /** The hosts `app` is served on, its default host first; only its default host while it is not routed. */
  hostsOf(app: RuntimeApp): string[] {
    const { namespace = '', name = '' } = app.metadata ?? {};
    return this.#assignment.hostsOf(`${namespace}/${name}`, defaultHost(namespace, name, this.#deps.baseDomain));
  }

  /** Decides the hosts of the app `key` from the caches as they are. */
  decide(key: string): void {
    const app = this.#deps.apps.get(key);
    const namespace = app?.metadata?.namespace;
    const name = app?.metadata?.name;
    if (!app || !namespace || !name || !isRouted(app)) {
      this.#assignment.set(key, undefined);
      return;
    }
    const deps = this.#deps;
    const facts = factsFromClaims({ baseDomain: deps.baseDomain, domains: deps.domains, hostnames: deps.hostnames, domainClaims: deps.domainClaims, hostnameClaims: deps.hostnameClaims });
    const asked = [...(app.spec.hostnames ?? []), ...attachedHostnames(this.#attachedByApp, namespace, name)];
    this.#assignment.set(key, { project: namespace, appId: name, hostnames: servable(namespace, asked, facts).served });
  }

  /** The caches hosts are decided from, for the controller to wait for before its first status. */
  get caches(): { waitForSync(signal?: AbortSignal): Promise<void> }[] {
    const { hostnames, domains, domainClaims, hostnameClaims } = this.#deps;
    return [hostnames, domains, domainClaims, hostnameClaims].flatMap((c) => (c.waitForSync ? [{ waitForSync: c.waitForSync.bind(c) }] : []));
  }

  stop(): void {
    this.#demotions.stop();
  }

  #decideOwnerOf(h: AppHostname): void {
    const key = hostnameAppKey(h);
    if (key !== undefined) this.decide(key);
  }

  #decideIn(namespace: string): void {
    for (const app of this.#deps.apps.list(namespace)) if (app.metadata?.namespace === namespace) this.decide(objectKey(app));
  }

  /**
   * Everything that names `host`: the apps whose deploy host names or AppHostnames are that name, and the apps
   * routed it or asking for it now (an AppHostname moved to another app is taken from the one it named).
   */
  #decideNamed(host: string): void {
    if (!host) return;
    const keys = appsNamed(host, this.#byListedHost, this.#attachedByHost);
    for (const key of this.#assignment.claimants(host)) keys.add(key);
    for (const key of keys) this.decide(key);
  }

  /** A claim on a domain: every app asking for a name under it. */
  #decideUnder(zone: string): void {
    for (const key of appsNamedInZone(zone, this.#byListedHost, this.#attachedByHost)) this.decide(key);
  }
}
