import type { RuntimeReplicaReport } from '../apis/v1alpha1/runtime-replica-report.ts';
import type { RuntimeReplica } from '../apis/v1alpha1/runtime-replica.ts';
import type { Informer, KubeObject } from '../kube/index.ts';

export { RUNTIME_REPLICA_LABEL } from '../apis/v1alpha1/runtime-replica.ts';

/** A `coordination.k8s.io/v1` Lease as a cw-runtime replica writes it (its heartbeat). */
export interface ReplicaLease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string;
    acquireTime?: string;
  };
}

/** Heartbeat defaults, as kubelet's node lease: renewed every 10 s, expired 40 s after the last renewal. */
export const DEFAULT_REPLICA_LEASE_SECONDS = 40;

/**
 * When a replica's lease expires (epoch ms): its last renewal plus its duration, or `undefined` for a lease
 * that does not belong to the replica of that name (no holder, another holder) or was never renewed.
 */
export function leaseExpiry(lease: ReplicaLease | undefined, replicaName: string): number | undefined {
  const spec = lease?.spec;
  if (!spec || spec.holderIdentity !== replicaName) return undefined;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (Number.isNaN(renewed)) return undefined;
  return renewed + (spec.leaseDurationSeconds ?? DEFAULT_REPLICA_LEASE_SECONDS) * 1000;
}

/** A replica counts while its Lease (same namespace and name) is unexpired: a crashed one stops counting. */
export function isLive(replica: RuntimeReplica, lease: ReplicaLease | undefined, now: number): boolean {
  const expiry = leaseExpiry(lease, replica.metadata?.name ?? '');
  return expiry !== undefined && expiry > now;
}

/** What the view reads of an informer (an in-memory stand-in in unit tests). */
export type ReplicaSource<T extends KubeObject> = Pick<Informer<T>, 'get' | 'list' | 'onChange' | 'hasSynced' | 'waitForSync'>;

/**
 * The live runtime replicas, read from informers of one namespace selected by `RUNTIME_REPLICA_LABEL`: the
 * RuntimeReplicas and the Leases, what the operator's RuntimeApp controller and cw-api's readiness count,
 * with no address of any replica configured anywhere; and, for the operator only, the replicas'
 * RuntimeReplicaReports (cw-api reads no app report, so it does not watch them).
 */
export class RuntimeReplicaView {
  readonly replicas: ReplicaSource<RuntimeReplica>;
  readonly leases: ReplicaSource<ReplicaLease>;
  readonly reports: ReplicaSource<RuntimeReplicaReport> | undefined;

  constructor(replicas: ReplicaSource<RuntimeReplica>, leases: ReplicaSource<ReplicaLease>, reports?: ReplicaSource<RuntimeReplicaReport>) {
    this.replicas = replicas;
    this.leases = leases;
    this.reports = reports;
  }

  /** The lease of a replica object (same namespace and name). */
  leaseOf(replica: RuntimeReplica): ReplicaLease | undefined {
    return this.leases.get(`${replica.metadata?.namespace ?? ''}/${replica.metadata?.name ?? ''}`);
  }

  /** Live replicas, by name (stable order). */
  live(now: number = Date.now()): RuntimeReplica[] {
    return this.replicas
      .list()
      .filter((replica) => isLive(replica, this.leaseOf(replica), now))
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  }

  /** Live replicas that take traffic and whose reports cover every app (their first list has settled): those whose reports count. */
  ready(now: number = Date.now()): RuntimeReplica[] {
    return this.live(now).filter((replica) => replica.spec.ready);
  }

  /** Live replicas that take traffic, whether or not their first list has settled (`takesTraffic`; absent: `ready`). */
  serving(now: number = Date.now()): RuntimeReplica[] {
    return this.live(now).filter((replica) => replica.spec.takesTraffic ?? replica.spec.ready);
  }
}
