import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createInformerFactory, type InformerFactory } from '../kube/informer-factory.ts';
import type { Informer } from '../kube/informer.ts';
import type { KubeConnection } from '../kube/kube-config.ts';
import { leaseClient, type LeaseClient } from '../kube/lease-client.ts';
import type { ResourceRef } from '../kube/resource.ts';
import type { KubeObject } from '../kube/types.ts';
import { startProbeServer, type ProbeServer } from './http-server.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { createLogger, type Logger } from '../logging/log.ts';

export interface ManagerOptions {
  /** Where informers and the Lease live. Tests may instead pass `informers` and `leases`. */
  kube?: KubeConnection;
  informers?: InformerFactory;
  leases?: LeaseClient;
  registry?: Registry;
  /** Port for `/metrics`, `/healthz`, `/readyz` (default 8080; 0 picks a free one). */
  port?: number;
  host?: string;
  /** `false` runs controllers at once (single replica, tests). */
  leaderElection: false | (Pick<LeaderElectionOptions, 'namespace' | 'name'> & Partial<Pick<LeaderElectionOptions, 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>>);
  /** Bound on waiting for in-flight reconciles at shutdown (default 20 s, under the pods' 30 s grace period). */
  shutdownTimeoutMs?: number;
  log?: Logger;
}

/**
 * Something that runs only on the leader (controller-runtime's `Runnable`): every `Controller` is one,
 * and so can be a periodic maintenance loop. `start` may wait (e.g. for caches) before work begins; `stop`
 * resolves once in-flight work has finished.
 */
export interface Runnable {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

/** Why the manager stopped: `leadership-lost` must end the process non-zero so the pod restarts clean. */
export type ManagerOutcome = 'stopped' | 'leadership-lost';

/**
 * Runs controllers the way controller-runtime's manager does: serve probes and metrics at once, campaign for
 * the Lease, and only once leading start informers and controllers. Stopping drains in-flight reconciles
 * (bounded), then releases the Lease so a standby takes over without waiting for it to expire.
 */
export class Manager {
  readonly registry: Registry;
  readonly log: Logger;
  /** Resolves when the manager has stopped, and why. */
  readonly done: Promise<ManagerOutcome>;
  readonly #options: ManagerOptions;
  readonly #runnables: Runnable[] = [];
  readonly #informers: InformerFactory | undefined;
  readonly #abort = new AbortController();
  #finish: (outcome: ManagerOutcome) => void = () => {};
  #elector: LeaderElector | undefined;
  #server: ProbeServer | undefined;
  #leading = false;
  #synced = false;
  #stopping: Promise<void> | undefined;

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.registry = options.registry ?? new Registry();
    this.log = options.log ?? createLogger();
    this.done = new Promise((resolve) => (this.#finish = resolve));
    this.#informers =
      options.informers ??
      (options.kube &&
        createInformerFactory(options.kube, {
          onError: (resource, err, info) => this.log.warn('informer error', { resource: resource.plural, phase: info.phase, retryInMs: info.retryInMs, err }),
        }));
  }

  /** The shared informer for `resource`; pass it as a controller's `source`. */
  informer<T extends KubeObject>(resource: ResourceRef, scope?: { namespace?: string; labelSelector?: string }): Informer<T> {
    if (!this.#informers) throw new Error('Manager needs `kube` or `informers` to make informers');
    return this.#informers.informer<T>(resource, scope);
  }

  /** Adds a controller (or any leader-only {@link Runnable}); call before {@link start}. */
  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
  }

  /** The probe server's port, once started. */
  get port(): number | undefined {
    return this.#server?.port;
  }

  /** Starts serving probes and campaigning; returns without waiting for leadership. */
  async start(): Promise<void> {
    const { leaderElection, port = 8080, host } = this.#options;
    this.#server = await startProbeServer({
      port,
      ...(host ? { host } : {}),
      registry: this.registry,
      healthy: () => true,
      // A standby is ready (it serves probes and waits); a leader once its caches are warm.
      ready: () => !this.#stopping && (!this.#leading || this.#synced),
    });
    this.log.info('serving metrics and probes', { port: this.#server.port });
    if (!leaderElection) {
      this.#lead();
      return;
    }
    const leases = this.#options.leases ?? (this.#options.kube && leaseClient(this.#options.kube));
    if (!leases) throw new Error('leader election needs `kube` or `leases`');
    this.#elector = new LeaderElector({
      identity: `${hostname()}_${randomUUID()}`,
      ...leaderElection,
      leases,
      log: this.log,
      onStartedLeading: () => this.#lead(),
      onStoppedLeading: () => this.#lose(),
      onNewLeader: (identity) => this.log.info('observed leader', { leader: identity }),
    });
    void this.#elector.run();
  }

  /** Graceful stop: no new work, in-flight reconciles finish (bounded), Lease released. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  #lead(): void {
    this.#leading = true;
    if (!this.#informers) this.#synced = true;
    this.#informers?.start();
    this.#informers?.waitForSync(this.#abort.signal).then(
      () => void (this.#synced = true),
      () => {},
    );
    for (const controller of this.#runnables) {
      controller.start(this.#abort.signal).catch((err: unknown) => {
        if (!this.#abort.signal.aborted) this.log.error('runnable failed to start', { controller: controller.name, err });
      });
    }
  }

  #lose(): void {
    // Another replica may already be leading: stop at once rather than finish work it now owns.
    this.log.error('leader election lost, stopping');
    this.#abort.abort();
    for (const controller of this.#runnables) void controller.stop();
    this.#informers?.stop();
    void this.#server?.close();
    this.#finish('leadership-lost');
  }

  async #stop(): Promise<void> {
    // Below the pods' 30 s termination grace period, so the release below happens before a SIGKILL.
    const timeoutMs = this.#options.shutdownTimeoutMs ?? 20_000;
    this.log.info('stopping: draining in-flight reconciles', { timeoutMs });
    this.#abort.abort();
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([Promise.all(this.#runnables.map((c) => c.stop())).then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    clearTimeout(timer);
    if (!drained) this.log.warn('shutdown timeout: abandoning in-flight reconciles');
    this.#informers?.stop();
    // Release only after our reconciles are done, so the next leader never overlaps with them; with some
    // abandoned and maybe still running, the lease is left to expire instead.
    await this.#elector?.stop({ release: drained });
    await this.#server?.close();
    this.log.info('stopped');
    this.#finish('stopped');
  }
}

/**
 * Runs `manager` as the process: SIGTERM or SIGINT stops it gracefully and exits 0; losing leadership exits 1
 * (as controller-runtime does) so Kubernetes restarts the pod with clean caches. A second signal exits at once.
 */
export async function runManager(manager: Manager, exit: (code: number) => void = (code) => process.exit(code)): Promise<void> {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return exit(1);
    signalled = true;
    manager.log.info('received signal, shutting down', { signal });
    void manager.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  await manager.start();
  const outcome = await manager.done;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  exit(outcome === 'stopped' ? 0 : 1);
}
