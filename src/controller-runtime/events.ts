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
}

// events.k8s.io caps `note` at 1 kB; keep core/v1 messages as short so both views agree.
const MAX_MESSAGE = 1024;

/**
 * Records Kubernetes Events about our objects, like client-go's EventRecorder: a repeat of the same
 * (object, type, reason, message) bumps `count` and `lastTimestamp` on the existing Event instead of creating
 * another. It never throws into the reconciler: a failed write is logged and dropped, because an Event is
 * commentary, never state.
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

  constructor(options: EventRecorderOptions) {
    this.#writer = options.writer;
    this.#component = options.component;
    this.#instance = options.instance ?? '';
    this.#log = options.log ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#cacheSize = options.cacheSize ?? 4096;
  }

  /** Records an event; the promise resolves when it is written (or dropped) and never rejects. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const involved = involvedObject(obj);
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const key = JSON.stringify([involved.apiVersion, involved.kind, involved.namespace, involved.name, involved.uid, type, reason, text]);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.#write(key, involved, type, reason, text));
    this.#tails.set(key, next);
    void next.then(() => {
      if (this.#tails.get(key) === next) this.#tails.delete(key);
    });
    return next;
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
