/** One app as the dispatcher routes to it. */
export interface RoutedApp {
  /** The Worker Loader id of the app's code and environment (a new id loads a new isolate). */
  readonly id: string;
  readonly build: string;
  /** Requests served at once, and how many more may wait for a slot. */
  readonly limit: number;
  readonly depth: number;
  /** Binding prefix of the app's assets service in this generation, when it has static assets. */
  readonly assets?: string;
  /** Its requests report to the tail worker (someone follows its logs). */
  readonly tailed?: boolean;
  /** During a rollout: the new release, served beside this one. */
  readonly split?: RoutedSplit;
}

/** The new release of a rollout as the dispatcher routes to it (docs/rollouts.md). */
export interface RoutedSplit {
  /** Loader id and build of the new release (an env-only rollout has the stable one's build). */
  readonly id: string;
  readonly build: string;
  /** Share of the new release in hundredths of a percent (0–10000): a key goes to it when `keyHash(key) % 10000 < weight`. */
  readonly weight: number;
  /** Header name (lowercase) or cookie name holding the affinity key. */
  readonly affinity: { readonly cookie: string } | { readonly header: string };
  /** Which stable and new releases the counts are of (their fingerprints): new counts once either changes. */
  readonly tag: string;
  /** Binding prefix of the new release's assets service, when it has static assets. */
  readonly assets?: string;
  readonly tailed?: boolean;
}

/** What the runtime pushes to the dispatcher (`dispatcher.js`): whole, on every change. */
export interface RoutingTable {
  /** Normalised host → app key (`<project>/<app>`). */
  readonly hosts: Readonly<Record<string, string>>;
  readonly apps: Readonly<Record<string, RoutedApp>>;
  /** `Retry-After` of 503 answers, in seconds. */
  readonly retryAfter: string;
}
