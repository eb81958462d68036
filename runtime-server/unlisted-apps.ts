import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { isInZone, parentName } from '../src/dns/names.ts';
import { isActiveHostname, serveRefusal, type NameFacts } from '../src/platform/host-admission.ts';
import { defaultHostOwner } from '../src/runtime-contract/hosts.ts';
import { listedHostsOf } from '../src/runtime-contract/listed-hosts.ts';
import { servingPlan } from '../src/runtime-contract/releases.ts';
import type { Logger } from '../src/logging/log.ts';
import { deploymentOf } from './desired.ts';
import type { AppDeployment } from './engine/index.ts';
import { bothLinked, linkedOfPlan, type DatabaseSources } from './linked-environment.ts';

/** What a lookup found: the app is routed now, no app may be served at the host, or it could not be told (retry). */
export type Lookup = 'routed' | 'none' | 'unknown';

/** Reads of single objects (and one project's apps) from the apiserver: nothing listed across the installation. */
export interface UnlistedReads {
  app(namespace: string, name: string): Promise<RuntimeApp | undefined>;
  appsIn(namespace: string): Promise<readonly RuntimeApp[]>;
  appHostname(namespace: string, name: string): Promise<AppHostname | undefined>;
  hostnameClaim(name: string): Promise<HostnameClaim | undefined>;
}

export interface UnlistedAppsOptions {
  baseDomain: string;
  reads: UnlistedReads;
  /** The project domains and domain claims (caches listed before the replica takes traffic: few, one per domain). */
  domains: { list(namespace?: string): readonly ProjectDomain[] };
  domainClaims: { get(key: string): DomainClaim | undefined };
  databases?: DatabaseSources;
  /** Routes what was found (on demand: its first request prepares it); false once the informers have listed (the controller decides then). */
  deploy: (deployment: AppDeployment) => Promise<boolean>;
  /** Lookups in flight at once (default 8): each is a few reads of the apiserver. */
  concurrency?: number;
  /** Lookups waiting for a turn before more are answered `unknown` at once (default 256). */
  maxWaiting?: number;
  log: Logger;
  now?: () => Date;
}

/** One host's lookup: the app, the project and how the host is its own (its default host, listed by its spec, attached). */
interface Found {
  readonly app: RuntimeApp;
  readonly listed: readonly string[];
  readonly attached: readonly string[];
}

/**
 * Serves apps a request asks for before the replica's informers have listed every RuntimeApp and AppHostname (a
 * minute and more at 100,000 apps): the app a host names is read from the apiserver by name (a default host names
 * its app and project; a custom host name its HostnameClaim, the claim its AppHostname; another name of a project's
 * part of the base domain or of its domain is one of that project's apps' `spec.hostnames`), admitted by the same
 * rule as every replica (`serveRefusal`) and routed with the host asked for, so the replica takes traffic in seconds
 * whatever the number of apps. Once the informers have listed, the serving controller decides every app, these
 * included. Lookups of one host are coalesced, and at most `concurrency` run at once: a flood of unknown names
 * costs the apiserver a bounded number of reads at a time and its excess is answered 503 to retry.
 */
export class UnlistedApps {
  readonly #o: UnlistedAppsOptions;
  readonly #baseDomain: string;
  readonly #inFlight = new Map<string, Promise<Lookup>>();
  readonly #waiting: Array<() => void> = [];
  #active = 0;
  /** The apps routed so far, by key, with the hosts each was routed with (a later lookup adds to them). */
  readonly #routed = new Map<string, { app: RuntimeApp; readonly listed: Set<string>; readonly attached: Set<string> }>();

  constructor(options: UnlistedAppsOptions) {
    this.#o = options;
    this.#baseDomain = options.baseDomain.toLowerCase().replace(/\.$/, '');
  }

  /** The keys (`project/app`) of the apps routed from a lookup: the controller reconciles them once it starts. */
  keys(): string[] {
    return [...this.#routed.keys()];
  }

  /** An app as a lookup read it (its HTTPS settings are read before the informers have it). */
  app(key: string): RuntimeApp | undefined {
    return this.#routed.get(key)?.app;
  }

  /** Looks up the app `host` (normalised) names and routes it; one lookup per host at a time. */
  lookup(host: string): Promise<Lookup> {
    const running = this.#inFlight.get(host);
    if (running) return running;
    if (this.#active >= (this.#o.concurrency ?? 8) && this.#waiting.length >= (this.#o.maxWaiting ?? 256)) return Promise.resolve('unknown');
    const lookup = this.#turn(() => this.#lookup(host)).finally(() => this.#inFlight.delete(host));
    this.#inFlight.set(host, lookup);
    return lookup;
  }

  async #turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= (this.#o.concurrency ?? 8)) await new Promise<void>((wake) => this.#waiting.push(wake));
    this.#active += 1;
    try {
      return await work();
    } finally {
      this.#active -= 1;
      this.#waiting.shift()?.();
    }
  }

  async #lookup(host: string): Promise<Lookup> {
    try {
      const found = await this.#find(host);
      if (!found) return 'none';
      return await this.#route(found);
    } catch (err) {
      this.#o.log.warn('cannot look up the app of a host before the informers have listed', { host, err });
      return 'unknown';
    }
  }

  async #find(host: string): Promise<Found | undefined> {
    const { reads } = this.#o;
    const owner = defaultHostOwner(host, this.#baseDomain);
    if (owner) {
      // A default host is its app's, if that app serves something; else another app of the project may list it.
      const app = await reads.app(owner.project, owner.appId);
      if (app?.spec.activeBuildId && !app.metadata?.deletionTimestamp) return { app, listed: [], attached: [] };
    }
    if (isInZone(host, this.#baseDomain)) {
      // `<name>.<project>.<base>`: only the project of that label may serve it, from an app's spec.
      const labels = host.slice(0, -this.#baseDomain.length - 1).split('.');
      return this.#listedBy(labels.at(-1) ?? '', host, this.#facts(host));
    }
    const claim = await reads.hostnameClaim(host);
    if (claim?.spec.holder.kind === 'AppHostname') {
      const project = claim.spec.holder.namespace;
      const attachment = await reads.appHostname(project, claim.spec.holder.name);
      const active = attachment !== undefined && isActiveHostname(attachment) && attachment.spec.hostname.toLowerCase() === host;
      const facts = this.#facts(host, { project, active });
      if (serveRefusal(project, host, facts) !== undefined || !attachment) return undefined;
      const app = await reads.app(project, attachment.spec.appRef.name);
      return app && { app, listed: [], attached: [host] };
    }
    // The nearest domain claimed above the name decides which project's apps may list it.
    for (let name = host; name.includes('.'); name = parentName(name)) {
      const holder = this.#o.domainClaims.get(name)?.spec.holder.namespace;
      if (holder !== undefined) return this.#listedBy(holder, host, this.#facts(host));
    }
    return undefined;
  }

  /** The app of `project` whose spec lists `host`, if the project may serve it. */
  async #listedBy(project: string, host: string, facts: NameFacts): Promise<Found | undefined> {
    if (!project || serveRefusal(project, host, facts) !== undefined) return undefined;
    const apps = await this.#o.reads.appsIn(project);
    const app = apps.find((a) => listedHostsOf(a).includes(host));
    return app && { app, listed: [host], attached: [] };
  }

  /** The admission facts of one host: domains from the caches, the host's own claim as the lookup read it. */
  #facts(host: string, hostname?: { project: string; active: boolean }): NameFacts {
    const { domains, domainClaims } = this.#o;
    return {
      baseDomain: this.#baseDomain,
      now: this.#o.now?.() ?? new Date(),
      domainHolder: (name) => domainClaims.get(name)?.spec.holder.namespace,
      hostnameHolder: (name) => (name === host ? hostname?.project : undefined),
      projectDomain: (project, domain) => domains.list(project).find((d) => d.metadata?.namespace === project && d.spec.domain === domain && d.spec.deleted !== true),
      hostnameActive: (project, name) => name === host && hostname?.project === project && hostname.active,
    };
  }

  /**
   * Routes the app found with every host looked up for it so far; `none` when it serves nothing (no build, being
   * deleted, its database variables unresolved). The deployment is built from what is known right before the
   * engine takes it, so two hosts of one app looked up at once both stay routed.
   */
  async #route(found: Found): Promise<Lookup> {
    const namespace = found.app.metadata?.namespace ?? '';
    const key = `${namespace}/${found.app.metadata?.name ?? ''}`;
    const entry = this.#routed.get(key) ?? { app: found.app, listed: new Set<string>(), attached: new Set<string>() };
    entry.app = found.app;
    for (const host of found.listed) entry.listed.add(host);
    for (const host of found.attached) entry.attached.add(host);
    this.#routed.set(key, entry);
    const app = found.app;
    const plan = servingPlan(app);
    const resolved = app.spec.activeBuildId && !app.metadata?.deletionTimestamp ? await linkedOfPlan(this.#o.databases, app, plan, namespace) : undefined;
    const linked = resolved && bothLinked(resolved.env, resolved.canary);
    if (linked && 'problem' in linked) return 'none';
    const listed = [...entry.listed].filter((host) => listedHostsOf(app).includes(host));
    const deployment = deploymentOf(
      { ...app, spec: { ...app.spec, hostnames: listed } },
      [...entry.attached],
      resolved && 'env' in resolved.env ? resolved.env.env : {},
      resolved && 'env' in resolved.canary ? resolved.canary.env : {},
    );
    if (!deployment) return 'none';
    return (await this.#o.deploy(deployment)) ? 'routed' : 'unknown';
  }
}
