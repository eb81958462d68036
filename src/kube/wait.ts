// Waiting for the controller's answer. A request handler that wrote intent (a spec, or an annotation that
// records a request) waits until the object's status reflects it: through the informer's watch events, never
// by polling. The wait is bounded, and running out of time is not an error: the caller answers what the
// status says by then, since the write itself succeeded and the controller carries on.
import type { Informer } from './informer.ts';
import { objectKey, type KubeObject } from './types.ts';

export interface WaitResult<T> {
  /** The object as the cache holds it when the wait ended; `undefined` when it is not (or no longer) there. */
  readonly object: T | undefined;
  /** Whether `condition` held; false when the wait ran out of time first. */
  readonly met: boolean;
}

/**
 * Resolves once `condition` holds for the cached object at `key` (given `undefined` while there is none), or
 * after `timeoutMs` with `met: false`. The condition is asked now and on every change the watch brings.
 */
export function waitFor<T extends KubeObject>(cache: Informer<T>, key: string, condition: (obj: T | undefined) => boolean, timeoutMs: number): Promise<WaitResult<T>> {
  const check = (): WaitResult<T> | undefined => {
    const object = cache.get(key);
    return condition(object) ? { object, met: true } : undefined;
  };
  const now = check();
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const finish = (result: WaitResult<T>) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(result);
    };
    // A change of this key (a delete and a re-create count too) may be the one: the cache is read again.
    const unsubscribe = cache.onChange((obj) => {
      if (objectKey(obj) !== key) return;
      const result = check();
      if (result) finish(result);
    });
    const timer = setTimeout(() => finish({ object: cache.get(key), met: false }), timeoutMs);
  });
}

/** The cache holds `written` (same uid) at its resourceVersion or a later one: a caller reads its own write. */
export function holdsWrite<T extends KubeObject>(written: KubeObject): (cached: T | undefined) => boolean {
  const version = Number(written.metadata?.resourceVersion ?? 0);
  return (cached) => cached?.metadata?.uid === written.metadata?.uid && Number(cached?.metadata?.resourceVersion ?? 0) >= version;
}

/** The object is gone from the cache (or replaced by another of the same name, or being deleted). */
export function isGoneFrom(obj: KubeObject): (cached: KubeObject | undefined) => boolean {
  return (cached) => cached?.metadata?.uid !== obj.metadata?.uid || cached?.metadata?.deletionTimestamp !== undefined;
}

/**
 * The controller's answer to a write of intent: waits (at most `timeoutMs`) until the cached object's
 * `status.observedGeneration` has reached `written`'s generation and `answers` holds, or the object was
 * replaced by another of its name. Answers the object as it then stands, or `written` when the cache never
 * showed this one.
 */
export async function waitForAnswer<T extends KubeObject & { status?: { observedGeneration?: number } }>(cache: Informer<T>, written: T, answers: (obj: T) => boolean, timeoutMs: number): Promise<T> {
  const uid = written.metadata?.uid;
  const generation = written.metadata?.generation ?? 0;
  // Absent before the cache shows the write; gone (deleted meanwhile) once it was seen: then nothing answers.
  let seen = false;
  const { object } = await waitFor(
    cache,
    objectKey(written),
    (o) => {
      if (o === undefined) return seen;
      seen = true;
      return o.metadata?.uid !== uid || ((o.status?.observedGeneration ?? 0) >= generation && answers(o));
    },
    timeoutMs,
  );
  return object !== undefined && object.metadata?.uid === uid ? object : written;
}
