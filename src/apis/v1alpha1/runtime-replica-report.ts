import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, Hostname } from './strings.ts';

/**
 * How many app reports one RuntimeReplicaReport (one project) holds: a project has at most 100 apps by
 * quota, so this is only a safety bound (reports of apps being deleted, a raised quota). A typical report
 * is about 200 bytes of JSON; the replica also stops adding reports once their JSON passes
 * {@link MAX_REPORT_BYTES} (apps with many long host names), whichever comes first.
 */
export const MAX_REPORTED_APPS = 1000;
/** The byte budget of one report object's reports (JSON), leaving headroom under etcd's 1.5 MiB for the rest. */
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
        run: Type.Optional(Type.String({ maxLength: 64, description: 'Which run of the split the counts are of: another once the replica restarts or the split starts again (counted from zero).' })),
        stable: ReplicaRequestCounts('of the stable release'),
        canary: ReplicaRequestCounts('of the new release'),
      },
      { description: 'While the replica splits the app between two releases: the split it applies and the requests and errors of each since it began (a restart counts from zero).' },
    ),
  ),
});

export const RuntimeReplicaReportSpec = Type.Object({
  replica: Type.String({
    minLength: 1,
    maxLength: 63,
    pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
    description: 'The cw-runtime replica (its RuntimeReplica, Lease and pod) that wrote these reports.',
  }),
  project: DnsLabel({ description: 'The project namespace whose apps these reports are about.' }),
  apps: Type.Array(ReplicaAppReport, {
    maxItems: MAX_REPORTED_APPS,
    // Replaced whole by its one writer: one managedFields entry, not one per app.
    'x-kubernetes-list-type': 'atomic',
    description: 'What the replica does for each app of the project it serves or has acted on, ordered by name; with `acted`, only the apps it has something to say about.',
  }),
  omittedApps: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Apps past the bound of apps (in name order), not reported.' })),
  acted: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[0-9]+$',
      description:
        "A RuntimeApp resourceVersion: the replica has acted on every change of this project's apps up to it. An app whose last change the replica acts on is at or before it, and that `apps` leaves out, is served as its spec asks on its default host alone (the report `defaultHost` implies). Absent: `apps` lists every app acted on.",
    }),
  ),
  defaultHost: Type.Optional(
    Type.Object(
      {
        domain: Hostname({ description: "The runtime's base domain: an app's default host is <app>.<project>.<domain>." }),
        scheme: Type.Union([Type.Literal('http'), Type.Literal('https')], { description: 'The scheme of the URLs clients use.' }),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, format: 'int32', description: 'The port of those URLs, when not the scheme’s own.' })),
      },
      { description: 'How the replica names default hosts and their URLs, for the reports `acted` implies.' },
    ),
  ),
});
export type RuntimeReplicaReportSpec = Static<typeof RuntimeReplicaReportSpec>;

export type RuntimeReplicaReport = CustomResource<'RuntimeReplicaReport', RuntimeReplicaReportSpec, undefined>;

/**
 * The name of a replica's report for a project: `<replica>.<project>` (each at most 63 characters, so
 * within the 253 of a DNS subdomain). Readers find an app's report on each replica by this name, with
 * no index; the admission policy lets a replica write only names that begin with its own.
 */
export function replicaReportName(replica: string, project: string): string {
  return `${replica}.${project}`;
}

/**
 * One cw-runtime replica's reports about the apps of one project, in the platform's namespace, named
 * {@link replicaReportName} and labelled with the replica's name (`cloudwright.dev/runtime-replica`) and the
 * project's (`cloudwright.dev/project`). A kind of its own rather than more RuntimeReplicas: a replica's
 * RuntimeReplica says whether it takes traffic and where its status port is, which cw-api watches; the
 * reports are what only the operator reads, so cw-api does not watch them, and each kind has one shape.
 * Per project rather than one object per replica: one object for every app capped a replica at a few
 * thousand apps (etcd's 1.5 MiB object limit) and made each change rewrite (and send to every watcher)
 * all of them; a project holds at most 100 apps, so its object stays small and a deploy rewrites only
 * its project's. Written only by that replica, when the project's reports change, and deleted when it has
 * none left for the project. In a cluster the Pod owns them as it owns the RuntimeReplica; the operator
 * deletes those of a replica whose Lease expired.
 */
export const RuntimeReplicaReportKind: KindDescriptor<'RuntimeReplicaReport', typeof RuntimeReplicaReportSpec, undefined> = {
  kind: 'RuntimeReplicaReport',
  plural: 'runtimereplicareports',
  singular: 'runtimereplicareport',
  shortNames: ['cwreplicareport'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'What one cw-runtime replica does for the apps of one project, written by that replica.',
  spec: RuntimeReplicaReportSpec,
  status: undefined,
  printerColumns: [
    { name: 'Replica', type: 'string', jsonPath: '.spec.replica', description: 'The replica that reports.' },
    { name: 'Project', type: 'string', jsonPath: '.spec.project', description: 'The project whose apps are reported.' },
  ],
};
