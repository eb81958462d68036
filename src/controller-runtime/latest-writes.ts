// The object a controller last wrote, per key. Its informer shows the write only once the watch event arrives,
// and under load a reconcile (its own requeue, an owned object's event) can start before that: from the older
// copy it would redo what the write recorded (an ACME order placed, a challenge answered) and its next write
// would fail on the stale resourceVersion, losing what that pass did.
import { holdsWrite, objectKey, type KubeObject } from '../kube/index.ts';

export class LatestWrites<T extends KubeObject> {
  readonly #written = new Map<string, T>();

  /** Records the object as a write answered it (the apiserver's copy after the write). */
  remember(written: T): void {
    this.#written.set(objectKey(written), written);
  }

  /** The newer of `cached` and this controller's last write of it; a write the cache holds is forgotten. */
  latest(cached: T): T {
    const key = objectKey(cached);
    const mine = this.#written.get(key);
    if (!mine) return cached;
    if (mine.metadata?.uid === cached.metadata?.uid && !holdsWrite(mine)(cached)) return mine;
    this.#written.delete(key);
    return cached;
  }

  /** The object at `key` (its controller's key) is gone: nothing to remember of it. */
  forget(key: string): void {
    this.#written.delete(key);
  }
}
