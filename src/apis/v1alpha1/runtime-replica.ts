import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, Hostname } from './strings.ts';

/**
 * How many app reports one RuntimeReplica holds. A typical report is about 200 bytes of JSON, so 4000 of
 * them stay well inside etcd's 1.5 MiB object limit; the replica also stops adding reports once their
 * JSON passes {@link MAX_REPORT_BYTES} (apps with many long host names), whichever comes first.
 */
export const MAX_REPORTED_APPS = 4000;
/** The byte budget of a replica's reports (JSON), leaving headroom under etcd's 1.5 MiB for the rest. */
export const MAX_REPORT_BYTES = 1024 * 1024;
/** A failure message longer than this is cut (workerd's output can be long). */
export const MAX_FAILURE_MESSAGE = 4096;

const Generation = (description: string) => Type.Integer({ minimum: 0, format: 'int64', description });

/** Why a replica stopped serving an app for a while (cw-runtime's quarantine, docs/runtime.md "Bounded user code"). */
export const LimitReason = Type.Union([Type.Literal('CPULimitExceeded'), Type.Literal('MemoryLimitExceeded')], {
  description: 'CPULimitExceeded (a request ran past the CPU bound without yielding) or MemoryLimitExceeded (it ran its shard out of memory).',
});

function ReplicaRequestCounts(of: string) {
  return Type.Object(
    {
      requests: Type.Integer({ minimum: 0, format: 'int64', description: `Requests answered ${of}.` }),
      errors: Type.Integer({ minimum: 0, format: 'int64', description: `5xx answers and uncaught exceptions ${of}.` }),
    },
    { description: `Counts ${of}.` },
  );
}

export const ReplicaAppReport = Type.Object({
  namespace: DnsLabel({ description: 'Namespace (project) of the RuntimeApp.' }),
  app: DnsLabel({ description: 'Name of the RuntimeApp.' }),
  servingBuildId: Type.Optional(DnsLabel({ description: 'The build this replica routes the app to now; absent when it serves nothing.' })),
  hosts: Type.Array(Hostname({ description: 'Host name.' }), {
    maxItems: 64,
    description: 'Every host routed to the app, the default host first; empty when nothing is served.',
  }),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'URL of the default host, when served.' })),
  servedGeneration: Type.Optional(Generation('metadata.generation of the RuntimeApp whose whole spec is served.')),
  observedGeneration: Type.Optional(Generation('metadata.generation of the spec this replica last acted on.')),
  failure: Type.Optional(
    Type.Object(
      {
        reason: Type.Union(
          [
            Type.Literal('BuildFailed'),
            Type.Literal('BuildNotFound'),
            Type.Literal('InsufficientStorage'),
            Type.Literal('QuotaExceeded'),
            Type.Literal('DatabaseNotFound'),
            Type.Literal('DatabaseNotReady'),
            Type.Literal('Retrying'),
          ],
          {
            description:
              "BuildFailed (not retried), BuildNotFound, InsufficientStorage (no room in the replica's data directory), QuotaExceeded (the project's unpacked builds past its quota), DatabaseNotFound or DatabaseNotReady (a spec.databaseEnvironment entry cannot be resolved yet) or Retrying (all retried).",
          },
        ),
        buildId: DnsLabel({ description: 'The build that failed.' }),
        // Multi-line (workerd's error output), so not a Text: any characters, bounded.
        message: Type.String({ maxLength: MAX_FAILURE_MESSAGE, description: 'Why; for BuildFailed, about the user code (workerd output, several lines).' }),
      },
      { description: 'Why observedGeneration is not served; absent while rolling out and once served.' },
    ),
  ),
  quarantine: Type.Optional(
    Type.Object(
      {
        reason: LimitReason,
        until: Type.String({ format: 'date-time', maxLength: 64, description: 'When the replica serves the app again.' }),
        message: Type.String({ maxLength: MAX_FAILURE_MESSAGE, description: 'What the app did, for its owner.' }),
      },
      { description: 'The replica stopped serving the app for a while (its requests are answered 503): one of them stopped its workerd shard.' },
    ),
  ),
  rollout: Type.Optional(
    Type.Object(
      {
        release: Type.String({ maxLength: 64, description: 'The new release (status.rollout.canary.release) the replica splits traffic for.' }),
        weight: Type.Integer({ minimum: 0, maximum: 100, format: 'int32', description: 'Percent of traffic the replica sends to the new release.' }),
        suspended: Type.Optional(Type.Boolean({ description: 'The new release stopped a workerd shard (CPU bound or memory) and gets no traffic here (weight 0).' })),
        stable: ReplicaRequestCounts('of the stable release'),
        canary: ReplicaRequestCounts('of the new release'),
      },
      { description: 'While the replica splits the app between two releases: the split it applies and the requests and errors of each since it began (a restart counts from zero).' },
    ),
  ),
});

export const RuntimeReplicaSpec = Type.Object({
  ready: Type.Boolean({ description: 'The replica takes traffic: workerd answers and the apps of its first list have settled.' }),
  statusURL: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: '^https?://[^/?#@\\s]+$',
      description: "Where the platform reaches this replica's status port (cw-api reads app logs there): scheme, host and port, no path.",
    }),
  ),
  apps: Type.Array(ReplicaAppReport, {
    maxItems: MAX_REPORTED_APPS,
    // Replaced whole by its one writer: one managedFields entry, not one per app.
    'x-kubernetes-list-type': 'atomic',
    description: 'What the replica does for each app it serves or has acted on, ordered by namespace/name.',
  }),
  omittedApps: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Apps past the bound of apps (in key order), not reported.' })),
});
export type RuntimeReplicaSpec = Static<typeof RuntimeReplicaSpec>;

export type RuntimeReplica = CustomResource<'RuntimeReplica', RuntimeReplicaSpec, undefined>;

/** Label on a replica's RuntimeReplica and Lease, so the operator and the API watch exactly those. */
export const RUNTIME_REPLICA_LABEL = 'cloudwright.dev/runtime-replica';

/**
 * One cw-runtime replica's report of what it serves, in the platform's namespace, named like the replica
 * (its pod). Written only by that replica, when its reports change; its liveness is a Lease of the same
 * name that it renews, so heartbeats never rewrite the reports. In a cluster the Pod owns both, so the
 * garbage collector removes them with it; the operator deletes those of a replica whose Lease expired.
 */
export const RuntimeReplicaKind: KindDescriptor<'RuntimeReplica', typeof RuntimeReplicaSpec, undefined> = {
  kind: 'RuntimeReplica',
  plural: 'runtimereplicas',
  singular: 'runtimereplica',
  shortNames: ['cwreplica'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'What one cw-runtime replica serves, written by that replica.',
  spec: RuntimeReplicaSpec,
  status: undefined,
  printerColumns: [{ name: 'Ready', type: 'boolean', jsonPath: '.spec.ready', description: 'The replica takes traffic.' }],
};
