// The status a controller last wrote, per object. A reconcile right after a write may read its informer's copy
// before the write shows there; starting from what it wrote keeps a later whole-status write from putting an
// older field back. Held by uid, so an object deleted and made again under the name starts from its own.
import type { KubeObject } from '../kube/index.ts';

type WithStatus<S> = KubeObject & { status?: S };

export class WrittenStatus<S> {
  readonly #written = new Map<string, { uid: string | undefined; status: S }>();

  /** Records what a status write answered (the object as the apiserver now holds it). */
  remember(written: WithStatus<S>, fallback: S): void {
    this.#written.set(keyOf(written), { uid: written.metadata?.uid, status: written.status ?? fallback });
  }

  /** `cached` with the status last written for it, when that is newer than what the cache has seen. */
  latest<T extends WithStatus<S>>(cached: T): T {
    const mine = this.#written.get(keyOf(cached));
    return mine && mine.uid === cached.metadata?.uid ? { ...cached, status: mine.status } : cached;
  }

  /** The object is gone: nothing to remember of it. */
  forget(key: string): void {
    this.#written.delete(key);
  }
}

const keyOf = (obj: KubeObject) => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
