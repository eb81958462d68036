import { isNotFound } from '../kube/api-error.ts';
import type { EventWriter, InvolvedObject } from '../kube/event-writer.ts';
import type { KubeObject } from '../kube/types.ts';
import { silentLogger, type Logger } from '../logging/log.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  writer: EventWriter;
  /** Reporting component, e.g. `cloudwright-operator`. */
  component: string;
  /** Reporting instance (pod name; cw-operator passes `$HOSTNAME`); default none. */
  instance?: string;
  log?: Logger;
  now?: () => number;
  /** How many distinct events are remembered for aggregation (client-go keeps 4096). */
  cacheSize?: number;
  /** Writes waiting or under way past which a new event is dropped (client-go's broadcaster queues 1000). */
  maxPending?: number;
  /** The same, per namespace (a project's share: default a tenth of `maxPending`), so one tenant's burst drops only its own. */
  maxPendingPerNamespace?: number;
}

// events.k8s.io caps `note` at 1 kB; keep core/v1 messages as short so both views agree.
const MAX_MESSAGE = 1024;

/** Dropped events are logged at most this often, with how many were dropped since. */
const DROP_LOG_INTERVAL_MS = 60_000;

/**
 * Records Kubernetes Events about our objects, like client-go's EventRecorder: a repeat of the same
 * (object, type, reason, message) bumps `count` and `lastTimestamp` on the existing Event instead of creating
 * another. It never throws into the reconciler: a failed write is logged and dropped, because an Event is
 * commentary, never state. For the same reason reconcilers do not wait for it (`void recorder.normal(…)`): a
 * worker waiting a round trip per Event on a loaded apiserver is a worker not converging the next object. What
 * that leaves unbounded, the writes in flight, is bounded by `maxPending`: past it events are dropped, as
 * client-go's broadcaster drops them when its queue is full. A namespace (a project) has a share of it,
 * `maxPendingPerNamespace`, so a tenant changing thousands of objects at once drops its own Events, not
 * everyone's (client-go's spam filter is per object for the same reason).
 */
export class EventRecorder {
  readonly #writer: EventWriter;
  readonly #component: string;
  readonly #instance: string;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #cacheSize: number;
  /** Aggregation key → the Event last written for it (insertion order doubles as LRU order). */
  readonly #seen = new Map<string, { namespace: string; name: string; count: number }>();
  /** Writes for one key run one after another, so a burst bumps one Event rather than racing creates. */
  readonly #tails = new Map<string, Promise<void>>();
  readonly #maxPending: number;
  readonly #maxPendingPerNamespace: number;
  #pending = 0;
  readonly #pendingIn = new Map<string, number>();
  #dropped = 0;
  #droppedLoggedAt = -Infinity;

  constructor(options: EventRecorderOptions) {
    this.#writer = options.writer;
    this.#component = options.component;
    this.#instance = options.instance ?? '';
    this.#log = options.log ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#cacheSize = options.cacheSize ?? 4096;
    this.#maxPending = options.maxPending ?? 1000;
    this.#maxPendingPerNamespace = options.maxPendingPerNamespace ?? Math.max(1, Math.floor(this.#maxPending / 10));
  }

  /** Records an event; the promise resolves when it is written (or dropped) and never rejects. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const involved = involvedObject(obj);
    const namespace = involved.namespace ?? '';
    const inNamespace = this.#pendingIn.get(namespace) ?? 0;
    if (this.#pending >= this.#maxPending || inNamespace >= this.#maxPendingPerNamespace) {
      this.#drop(obj, reason);
      return Promise.resolve();
    }
    this.#pending++;
    this.#pendingIn.set(namespace, inNamespace + 1);
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const key = JSON.stringify([involved.apiVersion, involved.kind, involved.namespace, involved.name, involved.uid, type, reason, text]);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.#write(key, involved, type, reason, text));
    this.#tails.set(key, next);
    void next.then(() => {
      this.#pending--;
      const left = (this.#pendingIn.get(namespace) ?? 1) - 1;
      if (left > 0) this.#pendingIn.set(namespace, left);
      else this.#pendingIn.delete(namespace);
      if (this.#tails.get(key) === next) this.#tails.delete(key);
    });
    return next;
  }

  /** Writes waiting or under way. */
  get pending(): number {
    return this.#pending;
  }

  #drop(obj: KubeObject, reason: string): void {
    this.#dropped++;
    const now = this.#now();
    if (now - this.#droppedLoggedAt < DROP_LOG_INTERVAL_MS) return;
    this.#droppedLoggedAt = now;
    const namespace = obj.metadata?.namespace ?? '';
    this.#log.warn('dropping events: too many writes pending', {
      pending: this.#pending,
      pendingInNamespace: this.#pendingIn.get(namespace) ?? 0,
      dropped: this.#dropped,
      kind: obj.kind,
      namespace,
      name: obj.metadata?.name,
      reason,
    });
    this.#dropped = 0;
  }

  normal(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Normal', reason, message);
  }

  warning(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Warning', reason, message);
  }

  async #write(key: string, involved: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    const time = this.#now();
    const log = this.#log.child({ namespace: involved.namespace, name: involved.name, kind: involved.kind, reason });
    try {
      const seen = this.#seen.get(key);
      if (seen) {
        try {
          await this.#writer.bump(seen.namespace, seen.name, seen.count + 1, time);
          seen.count++;
          this.#remember(key, seen);
          return;
        } catch (err) {
          // The Event expired (1 h TTL by default) or was deleted: start a new one.
          if (!isNotFound(err)) throw err;
        }
      }
      const namespace = involved.namespace || 'default';
      const name = await this.#writer.create({
        namespace,
        involvedObject: involved,
        type,
        reason,
        message,
        component: this.#component,
        instance: this.#instance,
        time,
      });
      this.#remember(key, { namespace, name, count: 1 });
    } catch (err) {
      log.warn('could not record event', { err });
    }
  }

  #remember(key: string, entry: { namespace: string; name: string; count: number }): void {
    this.#seen.delete(key);
    this.#seen.set(key, entry);
    if (this.#seen.size > this.#cacheSize) {
      const oldest = this.#seen.keys().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
  }
}

function involvedObject(obj: KubeObject): InvolvedObject {
  const meta = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: meta.name ?? '',
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}
