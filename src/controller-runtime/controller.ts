import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { TerminalError } from '../errors.ts';
import { objectKey, splitKey, type KubeObject } from '../kube/types.ts';
import { silentLogger, type Logger } from '../logging/log.ts';
import { runtimeMetrics, type ReconcileResult, type RuntimeMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Source } from './source.ts';
import { StatusOnlyChanges } from './status-only-changes.ts';
import { MAX_TIMER_MS, WorkQueue, type Priority } from './work-queue.ts';

/**
 * What a reconcile asks for next (controller-runtime's `Result`): nothing (converged), `requeueAfter` ms
 * (poll something outside the cluster), or `requeue` (retry with the rate limiter's backoff, not an error).
 */
export type Result = void | { requeueAfter?: number; requeue?: boolean };

export interface ReconcileContext {
  namespace: string;
  name: string;
  /** Carries `controller`, `namespace`, `name` and `reconcileID`. */
  log: Logger;
}

/**
 * Converges the object named by `key` (`namespace/name`). It is told nothing about what happened: it re-reads
 * the object (gone means deleted) and acts. Throwing retries with backoff; a `TerminalError` is not retried.
 */
export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<Result>;

/** A kind this controller creates; its events enqueue the owner's key. */
export interface OwnsSpec {
  kind: string;
  source: Source;
  /** Owner keys for an owned object; defaults to its controller owner reference of the primary kind. */
  mapToOwner?: (obj: KubeObject) => string[];
}

export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** Metrics and logs label, e.g. `runtimeapp`. */
  name: string;
  /** The primary kind, e.g. `RuntimeApp`. */
  kind: string;
  source: Source<T>;
  reconcile: Reconciler;
  /** Concurrent reconciles (controller-runtime's MaxConcurrentReconciles); one key never runs twice at once. */
  workers?: number;
  /** Concurrent reconciles of one namespace's objects at most (default `workers`): a namespace's slow ones leave workers to the others. */
  workersPerNamespace?: number;
  /** Other caches its reconciles read (not watched): listed before its workers start. */
  caches?: readonly { waitForSync(signal?: AbortSignal): Promise<void> }[];
  /** Whose share of `workersPerNamespace` a namespace's reconciles take (default: its own): namespaces of one tenant may share one. */
  namespaceGroup?: (namespace: string) => string;
  /** Re-enqueue every cached object this often (default 10 h, controller-runtime's SyncPeriod); 0 disables. */
  resyncPeriodMs?: number;
  owns?: OwnsSpec[];
  /**
   * Skip updates of the primary that changed only its status ({@link StatusOnlyChanges}). Only for a controller
   * that is its kind's one status writer and paces itself with `requeueAfter`: a status someone else writes
   * would no longer wake it.
   */
  ignoreStatusOnlyChanges?: boolean;
  registry?: Registry;
  log?: Logger;
  rateLimiter?: RateLimiter<string>;
  /** Work of the controller's own outside its reconciles, waited for by `stop` after them. */
  onStop?: () => Promise<void>;
}

/** More keys than this from one owned object's event are queued as backlog, behind the changes. */
const FAN_OUT = 100;

/** An event of a source's first list is backlog; one after it is a change, handed out before the backlog. */
function priorityOf(source: Source): Priority {
  return source.hasSynced() ? 'changed' : 'backlog';
}

/** The namespace of a `namespace/name` key; a cluster-scoped object's key has none (''). */
function namespaceOfKey(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/** The group of a `namespace/name` key: its namespace's, as `namespaceGroup` says. */
function groupOfKey(namespaceGroup: ((namespace: string) => string) | undefined): (key: string) => string {
  return namespaceGroup ? (key) => namespaceGroup(namespaceOfKey(key)) : namespaceOfKey;
}

/** The owner keys of `obj` for owner kind `kind`: only its controller reference, like controller-runtime's `Owns`. */
export function controllerOwnerKeys(kind: string, obj: KubeObject): string[] {
  const namespace = obj.metadata?.namespace;
  return (obj.metadata?.ownerReferences ?? []).filter((ref) => ref.kind === kind && ref.controller === true).map((ref) => (namespace ? `${namespace}/${ref.name}` : ref.name));
}

/** A level-based controller: watch events become keys in a de-duplicated queue drained by `workers` workers. */
export class Controller<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  readonly #options: ControllerOptions<T>;
  readonly #metrics: RuntimeMetrics;
  readonly #log: Logger;
  readonly #workers: number;
  #running: Promise<void>[] = [];
  #resync: NodeJS.Timeout | undefined;

  constructor(options: ControllerOptions<T>) {
    this.#options = options;
    this.name = options.name;
    this.#workers = Math.max(1, options.workers ?? 1);
    this.#metrics = runtimeMetrics(options.registry ?? new Registry());
    this.#log = (options.log ?? silentLogger).child({ controller: options.name });
    this.queue = new WorkQueue<string>({
      metrics: this.#metrics.queue(options.name),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.workersPerNamespace ? { perGroup: { of: groupOfKey(options.namespaceGroup), limit: options.workersPerNamespace } } : {}),
    });
    for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) {
      this.#metrics.reconcileTotal.inc({ controller: this.name, result }, 0);
    }
    this.#metrics.reconcileErrors.inc({ controller: this.name }, 0);
    this.#metrics.terminalReconcileErrors.inc({ controller: this.name }, 0);
    this.#metrics.maxConcurrentReconciles.set({ controller: this.name }, this.#workers);
    this.#metrics.activeWorkers.set({ controller: this.name }, 0);

    // Subscribing now, before informers start, means the initial list fills the queue.
    const statusOnly = options.ignoreStatusOnlyChanges ? new StatusOnlyChanges() : undefined;
    options.source.onChange((obj) => {
      const key = objectKey(obj);
      // The cache has applied the change before it tells us: an object it no longer holds was deleted.
      if (statusOnly?.onlyStatus(key, obj, options.source.get(key) !== undefined)) return;
      this.enqueue(key, priorityOf(options.source));
    });
    for (const owned of options.owns ?? []) {
      const map = owned.mapToOwner ?? ((obj: KubeObject) => controllerOwnerKeys(options.kind, obj));
      owned.source.onChange((obj) => {
        const keys = map(obj);
        // One event that touches many objects (a runtime replica joining: every app) is a walk over them, like a resync.
        const priority = keys.length > FAN_OUT ? 'backlog' : priorityOf(owned.source);
        for (const key of keys) this.enqueue(key, priority);
      });
    }
  }

  /** Queues a reconcile of `key`: `urgent` when someone waits on it now, `backlog` for a walk over every object. */
  enqueue(key: string, priority: Priority = 'changed'): void {
    this.queue.add(key, priority);
  }

  /** Waits for every source to sync, then starts the workers and the resync timer. */
  async start(signal?: AbortSignal): Promise<void> {
    const sources = [this.#options.source, ...(this.#options.owns ?? []).map((o) => o.source), ...(this.#options.caches ?? [])];
    await Promise.all(sources.map((source) => source.waitForSync(signal)));
    if (this.queue.isShuttingDown()) return;
    // A shared informer may have synced before we subscribed: enqueue what it holds (duplicates collapse).
    this.#enqueueAll();
    this.#log.info('starting workers', { workers: this.#workers });
    this.#running = Array.from({ length: this.#workers }, () => this.#work());
    const period = this.#options.resyncPeriodMs ?? 10 * 60 * 60 * 1000;
    if (period > 0) {
      this.#resync = setInterval(() => this.#enqueueAll(), Math.min(period, MAX_TIMER_MS));
    }
  }

  /** Stops taking work and resolves once in-flight reconciles have finished. */
  async stop(): Promise<void> {
    clearInterval(this.#resync);
    await this.queue.shutDown();
    await Promise.all(this.#running);
    await this.#options.onStop?.();
    this.#log.info('workers stopped');
  }

  #enqueueAll(): void {
    for (const obj of this.#options.source.list()) this.enqueue(objectKey(obj), 'backlog');
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.#reconcileKey(key);
      } finally {
        this.queue.done(key);
      }
      // A reconcile answered from the caches settles in microtasks, and so does the next key: without a turn of
      // the event loop between keys, a queue of thousands (every object at start) starves timers and I/O, the
      // leader lease's renewal among them (lost at 10,000 apps in the scale bench).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async #reconcileKey(key: string): Promise<void> {
    const controller = this.name;
    const { namespace, name } = splitKey(key);
    const log = this.#log.child({ namespace: namespace || undefined, name, reconcileID: randomUUID() });
    const stopTimer = this.#metrics.reconcileTime.startTimer({ controller });
    this.#metrics.activeWorkers.inc({ controller });
    let outcome: ReconcileResult;
    try {
      const result = await this.#options.reconcile(key, { namespace, name, log });
      if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
        // As controller-runtime: a timed requeue is not a failure, so the backoff starts over.
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfter);
        outcome = 'requeue_after';
      } else if (result && result.requeue) {
        this.queue.addRateLimited(key);
        outcome = 'requeue';
      } else {
        this.queue.forget(key);
        outcome = 'success';
      }
    } catch (err) {
      outcome = 'error';
      this.#metrics.reconcileErrors.inc({ controller });
      if (err instanceof TerminalError) {
        this.#metrics.terminalReconcileErrors.inc({ controller });
        log.error('reconcile failed terminally, not retrying', { err });
      } else {
        this.queue.addRateLimited(key);
        log.error('reconcile failed, retrying', { err, retries: this.queue.numRequeues(key) });
      }
    } finally {
      stopTimer();
      this.#metrics.activeWorkers.dec({ controller });
    }
    this.#metrics.reconcileTotal.inc({ controller, result: outcome });
  }
}
