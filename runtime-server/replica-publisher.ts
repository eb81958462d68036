import { RUNTIME_REPLICA_LABEL, type RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { formatMicroTime, LEASES, objectClient, type KubeConnection, type ObjectClient } from '../src/kube/index.ts';
import { RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import type { ReplicaLease } from '../src/platform/runtime-replicas.ts';
import type { Logger } from '../src/logging/log.ts';
import { replicaSpec, type ReplicaSnapshot } from './replica-reports.ts';

export interface ReplicaIdentity {
  /** The platform's namespace, where the replica's RuntimeReplica and Lease live. */
  readonly namespace: string;
  /** The replica's name: its pod's in a cluster. */
  readonly name: string;
  /** In a cluster, the pod owning both objects, so the garbage collector removes them with it. */
  readonly pod?: { readonly name: string; readonly uid: string };
}

export interface ReplicaPublisherOptions {
  kube: KubeConnection;
  identity: ReplicaIdentity;
  /** Lease duration; the lease is renewed every quarter of it (40 s → every 10 s, as kubelet's node lease). */
  leaseDurationSeconds: number;
  /** What to publish now (read from memory; cheap). */
  snapshot: () => ReplicaSnapshot;
  log: Logger;
  /** How long changes are gathered before one write (default 100 ms): reports change per deploy, not per request. */
  coalesceMs?: number;
}

const FIELD_MANAGER = 'cw-runtime';

/**
 * Publishes what this replica serves as its RuntimeReplica, and that it is alive as its Lease. It is the only
 * writer of both (server-side apply, forced). The reports are written when they change, gathered for
 * `coalesceMs` so a burst of deploys is one write; the Lease is renewed on a timer, apart from the reports,
 * so a heartbeat never rewrites (or sends to every watcher) the reports. When the operator removed an
 * expired replica's objects (this process was paused, say), the next renewal creates the Lease again and
 * the reports are written again. A graceful stop deletes both.
 */
export class ReplicaPublisher {
  readonly #options: ReplicaPublisherOptions;
  readonly #replicas: ObjectClient<RuntimeReplica>;
  readonly #leases: ObjectClient<ReplicaLease>;
  #written: string | undefined;
  #leaseUid: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #scheduled: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #beating: Promise<void> = Promise.resolve();
  #stopped = false;
  /** Wait before retrying a failed write: from 1 s, doubling to 30 s, reset by a write that succeeds. */
  #retryMs = 1000;

  constructor(options: ReplicaPublisherOptions) {
    this.#options = options;
    this.#replicas = objectClient<RuntimeReplica>(options.kube, RUNTIME_REPLICAS);
    this.#leases = objectClient<ReplicaLease>(options.kube, LEASES);
  }

  get identity(): ReplicaIdentity {
    return this.#options.identity;
  }

  /** Takes the lease and writes the first report; then renews every quarter of the lease duration. */
  async start(): Promise<void> {
    await this.#renew();
    await this.#publish();
    const every = (this.#options.leaseDurationSeconds * 1000) / 4;
    // #beat catches its own errors; the promise is kept so stop() waits for a renewal in flight.
    this.#heartbeat = setInterval(() => {
      this.#beating = this.#beat();
    }, every);
  }

  /** Something a report depends on changed: write the reports soon (coalesced). */
  changed(): void {
    if (this.#stopped || this.#scheduled) return;
    this.#scheduled = setTimeout(() => {
      this.#scheduled = undefined;
      this.#writing = this.#writing
        .then(() => this.#publish())
        .then(
          () => void (this.#retryMs = 1000),
          (err: unknown) => {
            this.#options.log.warn('cannot publish the replica report; retrying', { err, retryInMs: this.#retryMs });
            setTimeout(() => this.changed(), this.#retryMs).unref();
            this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
          },
        );
    }, this.#options.coalesceMs ?? 100);
  }

  /** Stops renewing and deletes the replica's RuntimeReplica and Lease: it stops counting at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#scheduled);
    await Promise.all([this.#writing.catch(() => {}), this.#beating]);
    const { namespace, name } = this.#options.identity;
    await this.#replicas.delete(namespace, name);
    await this.#leases.delete(namespace, name);
  }

  async #beat(): Promise<void> {
    try {
      await this.#renew();
      // Also publishes what changed without a signal (readiness after the first pass's time limit).
      this.changed();
    } catch (err) {
      this.#options.log.warn('cannot renew the replica lease', { err });
    }
  }

  #metadata(): NonNullable<RuntimeReplica['metadata']> {
    const { namespace, name, pod } = this.#options.identity;
    return {
      namespace,
      name,
      labels: { [RUNTIME_REPLICA_LABEL]: 'true' },
      ...(pod ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid }] } : {}),
    };
  }

  async #renew(): Promise<void> {
    if (this.#stopped) return;
    const now = formatMicroTime(Date.now());
    const lease = await this.#leases.apply(
      {
        metadata: this.#metadata(),
        spec: { holderIdentity: this.#options.identity.name, leaseDurationSeconds: this.#options.leaseDurationSeconds, renewTime: now },
      },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    const uid = lease.metadata?.uid;
    if (this.#leaseUid !== undefined && uid !== this.#leaseUid) {
      // The lease was removed (expired) and is new: so was the report, write it again.
      this.#options.log.warn('the replica lease had expired and was removed; publishing again');
      this.#written = undefined;
    }
    this.#leaseUid = uid;
  }

  async #publish(): Promise<void> {
    if (this.#stopped) return;
    const spec = replicaSpec(this.#options.snapshot());
    const body = JSON.stringify(spec);
    if (body === this.#written) return;
    if (spec.omittedApps) this.#options.log.warn('more apps than one replica report holds; the rest show RollingOut', { reported: spec.apps.length, omitted: spec.omittedApps });
    await this.#replicas.apply({ metadata: this.#metadata(), spec }, { fieldManager: FIELD_MANAGER, force: true });
    this.#written = body;
  }
}
