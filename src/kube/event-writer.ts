import { formatTime } from './time.ts';
import type { KubeConnection } from './kube-config.ts';
import { objectClient } from './object-client.ts';
import { EVENTS } from './resource.ts';
import type { KubeObject } from './types.ts';

/** The object an Event is about (core/v1 `ObjectReference`). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** One core/v1 Event to create. Times are epoch milliseconds. */
export interface NewEvent {
  /** Event namespace: the involved object's, or `default` for cluster-scoped objects. */
  namespace: string;
  involvedObject: InvolvedObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The reporting component, e.g. `cloudwright-operator`. */
  component: string;
  /** The reporting instance, e.g. the pod name. */
  instance: string;
  time: number;
}

/** Writes core/v1 Events. Errors (including 404 from {@link EventWriter.bump}) are thrown. */
export interface EventWriter {
  /** Creates the event with `count: 1` and returns its generated name. */
  create(event: NewEvent): Promise<string>;
  /** Records a repeat of an existing event: sets its `count` and `lastTimestamp`. */
  bump(namespace: string, name: string, count: number, time: number): Promise<void>;
}

interface EventObject extends KubeObject {
  [field: string]: unknown;
}

/** An {@link EventWriter} on the apiserver (core/v1 Events, which `kubectl describe` shows). */
export function eventWriter(conn: KubeConnection): EventWriter {
  const events = objectClient<EventObject>(conn, EVENTS);
  return {
    async create(e) {
      const created = await events.create({
        // client-go names events `<object>.<unique>`; generateName gives the unique part server-side.
        metadata: { namespace: e.namespace, generateName: `${e.involvedObject.name}.` },
        involvedObject: e.involvedObject,
        type: e.type,
        reason: e.reason,
        message: e.message,
        source: { component: e.component },
        reportingComponent: e.component,
        reportingInstance: e.instance,
        firstTimestamp: formatTime(e.time),
        lastTimestamp: formatTime(e.time),
        count: 1,
      });
      return created.metadata?.name ?? '';
    },
    async bump(namespace, name, count, time) {
      await events.patch(namespace, name, { count, lastTimestamp: formatTime(time) });
    },
  };
}
