import { MAX_FAILURE_MESSAGE, MAX_REPORT_BYTES, MAX_REPORTED_APPS, type RuntimeReplicaSpec } from '../src/apis/v1alpha1/runtime-replica.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';

/** What a replica publishes: whether it takes traffic, and its reports (already in key order). */
export interface ReplicaSnapshot {
  readonly ready: boolean;
  /** Where cw-api reaches this replica's status port (app logs). */
  readonly statusURL?: string;
  readonly apps: readonly RuntimeAppReport[];
}

/**
 * The RuntimeReplica spec for a snapshot, bounded so the object stays inside etcd's limit: reports are
 * kept in key order until `maxApps` of them, or `maxBytes` of their JSON, are reached; the rest are
 * counted in `omittedApps` (the RuntimeApp controller then sees those apps as not acted on by this replica).
 */
export function replicaSpec(snapshot: ReplicaSnapshot, maxApps = MAX_REPORTED_APPS, maxBytes = MAX_REPORT_BYTES): RuntimeReplicaSpec {
  const apps: RuntimeReplicaSpec['apps'] = [];
  let bytes = 0;
  for (const given of snapshot.apps) {
    const report = { ...given, hosts: [...given.hosts], ...(given.failure ? { failure: { ...given.failure, message: clip(given.failure.message) } } : {}) };
    const size = Buffer.byteLength(JSON.stringify(report)) + 1;
    if (apps.length >= maxApps || bytes + size > maxBytes) break;
    bytes += size;
    apps.push(report);
  }
  const omitted = snapshot.apps.length - apps.length;
  return { ready: snapshot.ready, ...(snapshot.statusURL ? { statusURL: snapshot.statusURL } : {}), apps, ...(omitted > 0 ? { omittedApps: omitted } : {}) };
}

function clip(message: string): string {
  return message.length <= MAX_FAILURE_MESSAGE ? message : `${message.slice(0, MAX_FAILURE_MESSAGE - 1)}…`;
}
