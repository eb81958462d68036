// What cw-runtime reports of one app (src/runtime-contract/report.ts), built from what it remembers of the
// app's spec and what its engine serves.
import type { DeployFailure, QuarantineReport, RuntimeAppReport } from '../src/runtime-contract/report.ts';
import type { ServedApp } from './engine/index.ts';

/** What a replica remembers of one app between reconciles: in memory only, rebuilt after a restart. */
export interface AppRecord {
  readonly generation: number;
  readonly buildId: string;
  /** The app's active AppHostnames deployed with that generation (sorted): they change without a new generation. */
  readonly attached?: readonly string[];
  /** The app tokens' generations its linked variables were read at (`linkSignature`): a rotation changes it. */
  readonly linked?: string;
  readonly servedGeneration?: number;
  readonly failure?: DeployFailure;
}

/** The report for an app, or `undefined` when this replica neither serves nor has acted on it (404). */
export function reportFor(namespace: string, app: string, record: AppRecord | undefined, served: ServedApp | undefined, quarantine?: QuarantineReport): RuntimeAppReport | undefined {
  if (!record && !served) return undefined;
  return {
    namespace,
    app,
    ...(served ? { servingBuildId: served.buildId, url: served.url } : {}),
    hosts: served ? [...served.hosts] : [],
    ...(record?.servedGeneration !== undefined && served ? { servedGeneration: record.servedGeneration } : {}),
    ...(record ? { observedGeneration: record.generation } : {}),
    ...(record?.failure ? { failure: record.failure } : {}),
    ...(quarantine && served ? { quarantine } : {}),
  };
}
