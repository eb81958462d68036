import type { Affinity } from '../../src/runtime-contract/releases.ts';

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
  /** When the app was created (epoch ms; its RuntimeApp's creationTimestamp): how a project's fresh apps are told. */
  readonly createdAt?: number;
  /**
   * A second release served beside this one during a rollout (docs/rollouts.md): `weight` percent of the
   * affinity keys (and of keyless requests) go to it. Both share the app's hosts and concurrency limit.
   */
  readonly canary?: CanaryDeployment;
}

/** The new release of a rollout: its build and environment, its share and what keeps a user on it. */
export interface CanaryDeployment {
  readonly buildId: string;
  readonly env: Readonly<Record<string, string>>;
  /** Percent, 0–100. */
  readonly weight: number;
  readonly affinity: Affinity;
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
  /**
   * The rollout's new release served beside `buildId`, and its share in percent; `suspended` (weight 0): it
   * stopped the app's shard, and this replica serves the stable release alone while that release is asked for.
   */
  readonly canary?: { readonly buildId: string; readonly weight: number; readonly suspended?: true };
  /** Served on demand and not prepared on this replica yet: its first request fetches, checks and loads the build. */
  readonly onDemand?: true;
  /**
   * Served on demand, its build never tried on this replica, with a fallback if it cannot be served (the release
   * the replicas served before it), or refused by another replica before: which the app serves here is not known
   * yet (`build-checks.ts`).
   */
  readonly untried?: { readonly fallbackBuildId?: string };
}
