/** Which build to fetch. The build id alone identifies it; project and app let a store scope its keys. */
export interface BuildRef {
  readonly project: string;
  readonly appId: string;
  readonly buildId: string;
}

/**
 * Where the runtime gets build artifacts: the `.tar.zst` exactly as uploaded, which the API server
 * stored (content-addressed) in the object store. The production implementation reads the object store
 * (`src/object-store/`); tests use an in-memory map. Throws when the build does not exist.
 */
export interface ArtifactSource {
  /**
   * The artifact's bytes as a stream, read once and to its end (the runtime unpacks as they arrive). The
   * iteration may throw at its end: a source that checks the bytes (their digest) can only tell then.
   */
  fetch(ref: BuildRef): Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>>;
}

/** What the controller asks the runtime to serve for one app. */
export interface AppDeployment {
  /** Project id: a DNS label, part of the default host. */
  readonly project: string;
  /** App id: a DNS label, part of the default host. */
  readonly appId: string;
  readonly buildId: string;
  /** Plain environment (`env.KEY`, and `process.env.KEY` under `nodejs_compat`). */
  readonly env: Readonly<Record<string, string>>;
  /** Exact host names to serve besides the default host (deploy hostnames, finalized custom domains). */
  readonly hostnames: readonly string[];
  /** Requests served at once before new ones queue; absent: the runtime default. */
  readonly maxConcurrentRequests?: number;
}

/** What the runtime serves for one app. */
export interface ServedApp {
  readonly project: string;
  readonly appId: string;
  readonly buildId: string;
  /** Every host routed to the app, the default host first. */
  readonly hosts: readonly string[];
  /** URL of the default host. */
  readonly url: string;
  readonly maxConcurrentRequests: number;
}
