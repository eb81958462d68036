import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { compareResourceVersions } from '../src/kube/resource-version.ts';
import type { Logger } from '../src/logging/log.ts';
import { factsFromClaims, type ClaimSources } from '../src/platform/claim-facts.ts';
import { isActiveHostname, nameHolder, serveRefusal } from '../src/platform/host-admission.ts';
import { defaultHostOwner, normalizeHost } from '../src/runtime-contract/hosts.ts';
import { listedHostsOf } from '../src/runtime-contract/listed-hosts.ts';
import { servingPlan } from '../src/runtime-contract/releases.ts';
import { deploymentOf } from './desired.ts';
import { recordedFallback, refusedBefore } from './recorded-fallback.ts';
import type { AppDeployment } from './engine/index.ts';
import { BoundedTurns } from './bounded-turns.ts';
import { bothLinked, linkedOfPlan, type DatabaseSources } from './linked-environment.ts';

/** What a lookup found: the app is routed now, no app may be served at the host, or it could not be told now (a 503 to retry). */
export type Lookup = 'routed' | 'none' | 'retry';

/** Reads of one app, and of one project's apps (at most a project's quota of them), from the apiserver. */
export interface UnlistedReads {
  app(namespace: string, name: string): Promise<RuntimeApp | undefined>;
  appsIn(namespace: string): Promise<readonly RuntimeApp[]>;
}

export interface UnlistedAppsOptions {
  baseDomain: string;
  /** The one namespace this replica serves (`CW_WATCH_NAMESPACE`), when it serves one. */
  namespace?: string;
  reads: UnlistedReads;
  /**
   * The name claims, the project domains and the AppHostnames as the controller's admission reads them, so a name
   * is admitted here exactly as it is there: the domains and their claims listed before the replica takes traffic,
   * the claims and AppHostnames of custom host names (one per name) as `prepareName` read them until they are listed.
   */
  names: ClaimSources;
  /**
   * The claims to decide a host that is not an app's default host on, where those kept one per custom host name
   * are not listed yet either (`NamesOnDemand.prepare`: read now); `undefined`: `names` decide.
   */
  prepareName?: (host: string) => Promise<ClaimSources> | undefined;
  databases?: DatabaseSources;
  /** Routes what was found (on demand: its first request prepares it); false once the informers have listed (the controller decides then). */
  deploy: (deployment: AppDeployment, fallback?: AppDeployment, refusedBefore?: boolean) => Promise<boolean>;
  /** Lookups in flight at once (default 8): each is a read or two of the apiserver. */
  concurrency?: number;
  /** Lookups waiting for a turn before more are answered `retry` at once (default 256). */
  maxWaiting?: number;
  log: Logger;
  now?: () => number;
}

/** How long a project's apps as read, and a host found to name no app, are taken as known. */
const REMEMBER_MS = 5_000;
/** Hosts remembered as naming no app, at most (a flood of made-up names must not grow it without end). */
const MAX_NOWHERE = 10_000;
/** A failed lookup is logged at most this often, with how many were not. */
const WARN_EVERY_MS = 10_000;

/** One host's lookup: the app, and whether the host is one its spec lists or an active AppHostname of it. */
interface Found {
  readonly app: RuntimeApp;
  readonly listed: readonly string[];
  readonly attached: readonly string[];
}

/** An app routed from lookups: its newest read, every host looked up for it, and its deploys one after another. */
interface Routed {
  app: RuntimeApp;
  readonly listed: Set<string>;
  readonly attached: Set<string>;
  chain: Promise<unknown>;
}

/**
 * Serves apps a request asks for before the replica's informers have listed every RuntimeApp (a minute and more at
 * 100,000 apps): the app a host names is read from the apiserver. A default host names its app; any other name is
 * decided by the claims (`nameHolder`: the project's part of the base domain, a domain or a custom host name it
 * holds), admitted by the same rule as every replica (`serveRefusal`), and then is its project's app with an active
 * AppHostname for it or the one app whose spec lists it (a name two apps ask for is served for neither, as the
 * engine's assignment does). It is routed with the host asked for; once the informers have listed, the serving
 * controller decides every app. Lookups of one host are coalesced, a project's apps and a name of no app are
 * remembered for a few seconds, at most `concurrency` lookups run at once and `maxWaiting` wait: a flood of made-up
 * names costs the apiserver a bounded number of reads at a time, and its excess is answered 503 to retry.
 */
export class UnlistedApps {
  readonly #o: UnlistedAppsOptions;
  readonly #baseDomain: string;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, Promise<Lookup>>();
  readonly #turns: BoundedTurns;
  readonly #routed = new Map<string, Routed>();
  readonly #projectApps = new Map<string, { until: number; apps: Promise<readonly RuntimeApp[]> }>();
  readonly #nowhere = new Map<string, number>();
  #warned = { at: -Infinity, since: 0 };

  constructor(options: UnlistedAppsOptions) {
    this.#o = options;
    this.#baseDomain = options.baseDomain.toLowerCase().replace(/\.$/, '');
    this.#now = options.now ?? Date.now;
    this.#turns = new BoundedTurns(options.concurrency ?? 8, options.maxWaiting ?? 256);
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
    if ((this.#nowhere.get(host) ?? -Infinity) > this.#now()) return Promise.resolve('none');
    const running = this.#inFlight.get(host);
    if (running) return running;
    if (this.#turns.full()) return Promise.resolve('retry');
    const lookup = this.#turns.run(() => this.#lookup(host)).finally(() => this.#inFlight.delete(host));
    this.#inFlight.set(host, lookup);
    return lookup;
  }

  async #lookup(host: string): Promise<Lookup> {
    try {
      const found = await this.#find(host);
      if (found) return await this.#route(found);
      if (this.#nowhere.size >= MAX_NOWHERE) this.#nowhere.clear();
      this.#nowhere.set(host, this.#now() + REMEMBER_MS);
      return 'none';
    } catch (err) {
      this.#warn(host, err);
      return 'retry';
    }
  }

  async #find(host: string): Promise<Found | undefined> {
    const owner = defaultHostOwner(host, this.#baseDomain);
    if (owner && this.#serves(owner.project)) {
      // A default host is its app's when that app serves something; else another app of the project may have it.
      const app = await this.#o.reads.app(owner.project, owner.appId);
      if (app && deploymentOf(app)) return { app, listed: [], attached: [] };
    }
    const claims = (await this.#o.prepareName?.(host)) ?? this.#o.names;
    const facts = factsFromClaims(claims, new Date(this.#now()));
    const project = nameHolder(host, facts)?.project;
    if (project === undefined || !this.#serves(project) || serveRefusal(project, host, facts) !== undefined) return undefined;
    const attachedTo = (claims.hostnames?.list(project) ?? [])
      .filter((h) => h.metadata?.namespace === project && normalizeHost(h.spec.hostname) === host && isActiveHostname(h))
      .map((h) => h.spec.appRef.name);
    const apps = await this.#appsIn(project);
    const listing = apps.filter((a) => listedHostsOf(a).includes(host)).map((a) => a.metadata?.name ?? '');
    const names = new Set([...attachedTo, ...listing]);
    const [name] = names;
    const app = names.size === 1 ? apps.find((a) => a.metadata?.name === name) : undefined;
    return app && { app, listed: listing.includes(name!) ? [host] : [], attached: attachedTo.includes(name!) ? [host] : [] };
  }

  #serves(namespace: string): boolean {
    return namespace !== '' && (this.#o.namespace === undefined || namespace === this.#o.namespace);
  }

  /** A project's apps, read once for every lookup in it within a few seconds. */
  #appsIn(project: string): Promise<readonly RuntimeApp[]> {
    const known = this.#projectApps.get(project);
    if (known && known.until > this.#now()) return known.apps;
    const apps = this.#o.reads.appsIn(project);
    this.#projectApps.set(project, { until: this.#now() + REMEMBER_MS, apps });
    apps.catch(() => this.#projectApps.delete(project));
    return apps;
  }

  /**
   * Routes the app found with every host looked up for it so far. One app's deploys run one after another, each
   * from its newest read, so the last one carries every host and the latest spec.
   */
  #route(found: Found): Promise<Lookup> {
    const key = `${found.app.metadata?.namespace ?? ''}/${found.app.metadata?.name ?? ''}`;
    const entry = this.#routed.get(key) ?? { app: found.app, listed: new Set<string>(), attached: new Set<string>(), chain: Promise.resolve() };
    if (compareResourceVersions(found.app.metadata?.resourceVersion, entry.app.metadata?.resourceVersion) > 0) entry.app = found.app;
    for (const host of found.listed) entry.listed.add(host);
    for (const host of found.attached) entry.attached.add(host);
    this.#routed.set(key, entry);
    const deployed = entry.chain.then(() => this.#deploy(entry));
    entry.chain = deployed.catch(() => undefined);
    return deployed;
  }

  /** Deploys what `entry` says: `none` when the app serves nothing, `retry` while its database variables cannot be had. */
  async #deploy(entry: Routed): Promise<Lookup> {
    const { app } = entry;
    const namespace = app.metadata?.namespace ?? '';
    const resolved = deploymentOf(app) ? await linkedOfPlan(this.#o.databases, app, servingPlan(app), namespace) : undefined;
    if (resolved && 'problem' in bothLinked(resolved.env, resolved.canary)) return 'retry';
    const listed = [...entry.listed].filter((host) => listedHostsOf(app).includes(host));
    const deployment = deploymentOf(
      { ...app, spec: { ...app.spec, hostnames: listed } },
      [...entry.attached],
      resolved && 'env' in resolved.env ? resolved.env.env : {},
      resolved && 'env' in resolved.canary ? resolved.canary.env : {},
    );
    if (!deployment) return 'none';
    return (await this.#o.deploy(deployment, await recordedFallback(this.#o.databases, app, deployment, namespace), refusedBefore(app))) ? 'routed' : 'retry';
  }

  #warn(host: string, err: unknown): void {
    const now = this.#now();
    if (now - this.#warned.at < WARN_EVERY_MS) {
      this.#warned.since += 1;
      return;
    }
    this.#o.log.warn('cannot look up the app of a host before the informers have listed', { host, err, alsoFailedSinceLast: this.#warned.since });
    this.#warned = { at: now, since: 0 };
  }
}
