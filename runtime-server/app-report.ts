// What cw-runtime reports of one app (src/runtime-contract/report.ts), built from what it remembers of the
// app's spec and what its engine serves.
import type { DeployFailure, QuarantineReport, RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { runOfTag, type RolloutCounts, type ServedApp } from './engine/index.ts';

/** What a replica remembers of one app between reconciles: in memory only, rebuilt after a restart. */
export interface AppRecord {
  readonly generation: number;
  readonly buildId: string;
  /**
   * The host names deployed with that generation beyond the default one (its deploy host names and active
   * AppHostnames the claims admit, sorted): an AppHostname or a claim changes them without a new generation.
   */
  readonly hostnames?: readonly string[];
  /** The app tokens' generations its linked variables were read at (`linkSignature`): a rotation changes it. */
  readonly linked?: string;
  readonly servedGeneration?: number;
  readonly failure?: DeployFailure;
  /** The serving plan last acted on (`planSignature`); absent: the spec. */
  readonly plan?: string;
  /** The split of a rollout being served: the new release's digest and the weight. */
  readonly rollout?: { readonly release: string; readonly weight: number };
}

/**
 * The report for an app, or `undefined` when this replica neither serves nor has acted on it (404). While it
 * serves a rollout's split, the build is the new release's and `counts` (the engine's, per release) go in.
 * `unservable`: the deployed build, routed here on demand, could not be loaded on its first request; the app
 * then serves nothing of that generation, whatever the deploy's bookkeeping said. An untried build with a fallback
 * (`ServedApp.untried`) is not reported served either, only rolling out beside its fallback, until it is tried:
 * the operator records what every replica serves as the release a new replica falls back to.
 */
export function reportFor(
  namespace: string,
  app: string,
  record: AppRecord | undefined,
  served: ServedApp | undefined,
  quarantine?: QuarantineReport,
  counts?: Pick<RolloutCounts, 'stable' | 'canary'> & { readonly tag?: string },
  unservable?: DeployFailure,
): RuntimeAppReport | undefined {
  if (unservable && record) return reportFor(namespace, app, withoutServing(record, unservable), served && withoutBuild(served, unservable.buildId), quarantine, counts);
  if (!record && !served) return undefined;
  // An untried deployment's split is not served yet: the fallback is, whole.
  const split = !served?.untried && served?.canary && record?.rollout;
  const zero = { requests: 0, errors: 0 };
  return {
    namespace,
    app,
    ...(served ? servingOf(served, Boolean(split)) : {}),
    hosts: served ? [...served.hosts] : [],
    ...(record?.servedGeneration !== undefined && served && !served.untried ? { servedGeneration: record.servedGeneration } : {}),
    ...(record ? { observedGeneration: record.generation } : {}),
    ...(record?.failure ? { failure: record.failure } : {}),
    ...(quarantine && served ? { quarantine } : {}),
    ...(split && served.canary
      ? {
          rollout: {
            release: split.release,
            weight: served.canary.weight,
            ...(served.canary.suspended ? { suspended: true } : {}),
            ...(counts?.tag !== undefined ? { run: runOfTag(counts.tag) } : {}),
            stable: { ...(counts?.stable ?? zero) },
            canary: { ...(counts?.canary ?? zero) },
          },
        }
      : {}),
  };
}

/** The build `served` serves (its fallback while its own is untried, none when it has no fallback) and its URL. */
function servingOf(served: ServedApp, split: boolean): { servingBuildId?: string; url: string } {
  const servingBuildId = served.untried ? served.untried.fallbackBuildId : served.canary && split ? served.canary.buildId : served.buildId;
  return { ...(servingBuildId !== undefined ? { servingBuildId } : {}), url: served.url };
}

/** The record of a deploy whose build its first request found unservable: failed, its generation not served. */
function withoutServing(record: AppRecord, failure: DeployFailure): AppRecord {
  const { servedGeneration: _notServed, ...kept } = record;
  return { ...kept, failure };
}

/** What is served, less the unservable build (an app prepared on demand presents its deployed build before loading it). */
function withoutBuild(served: ServedApp, buildId: string): ServedApp | undefined {
  return served.buildId === buildId || served.canary?.buildId === buildId ? undefined : served;
}
