import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';

export const RuntimeReplicaSpec = Type.Object({
  ready: Type.Boolean({
    description:
      'The replica takes traffic and its reports cover every app, so the operator counts them: workerd answers and the apps of its first list have settled (or it waited two minutes for them).',
  }),
  takesTraffic: Type.Optional(
    Type.Boolean({
      description:
        'The replica takes traffic (its /readyz): workerd answers and its informers have listed the apps, one it has not reached yet being deployed when a request asks for it; true before ready while it goes through its first list. Absent: the same as ready (a replica of an earlier version, or a CRD not upgraded).',
    }),
  ),
  statusURL: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: '^https?://[^/?#@\\s]+$',
      description: "Where the platform reaches this replica's status port (cw-api reads app logs there): scheme, host and port, no path.",
    }),
  ),
});
export type RuntimeReplicaSpec = Static<typeof RuntimeReplicaSpec>;

export type RuntimeReplica = CustomResource<'RuntimeReplica', RuntimeReplicaSpec, undefined>;

/**
 * Label on a replica's RuntimeReplica and Lease (value `true`), so the operator and the API watch exactly
 * those, and on its RuntimeReplicaReports (value: the replica's name).
 */
export const RUNTIME_REPLICA_LABEL = 'cloudwright.dev/runtime-replica';

/**
 * One cw-runtime replica: whether it takes traffic and where its status port is, in the platform's
 * namespace, named like the replica (its pod). Written only by that replica, when either changes; its
 * liveness is a Lease of the same name that it renews, so heartbeats never rewrite it. What it does for
 * each app is in its RuntimeReplicaReports, one per project (see there why). In a cluster the Pod owns all
 * of them, so the garbage collector removes them with it; the operator deletes those of a replica whose
 * Lease expired.
 */
export const RuntimeReplicaKind: KindDescriptor<'RuntimeReplica', typeof RuntimeReplicaSpec, undefined> = {
  kind: 'RuntimeReplica',
  plural: 'runtimereplicas',
  singular: 'runtimereplica',
  shortNames: ['cwreplica'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'One cw-runtime replica: whether it takes traffic, and its status address; written by that replica.',
  spec: RuntimeReplicaSpec,
  status: undefined,
  printerColumns: [
    { name: 'Traffic', type: 'boolean', jsonPath: '.spec.takesTraffic', description: 'The replica takes traffic.' },
    { name: 'Ready', type: 'boolean', jsonPath: '.spec.ready', description: 'It takes traffic and its reports cover every app (its first list has settled): the operator counts them.' },
  ],
};
