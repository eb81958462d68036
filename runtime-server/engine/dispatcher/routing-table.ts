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
}

/** What the runtime pushes to the dispatcher (`dispatcher.js`): whole, on every change. */
export interface RoutingTable {
  /** Normalised host → app key (`<project>/<app>`). */
  readonly hosts: Readonly<Record<string, string>>;
  readonly apps: Readonly<Record<string, RoutedApp>>;
  /** `Retry-After` of 503 answers, in seconds. */
  readonly retryAfter: string;
}
