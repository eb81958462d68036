import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/types.ts';

/**
 * Tells an update that changed only an object's status from one that changed what a reconcile acts on: its spec
 * (the generation), labels, annotations, finalizers, owners or deletion. It is controller-runtime's
 * GenerationChangedPredicate joined with its label and annotation predicates, for a controller that is the only
 * writer of its kind's status: without it, each status write it makes enqueues the object again at once, and a
 * status that moves on every read (usage figures) is rewritten back to back instead of at the controller's pace.
 * Holds a digest per object, not the object.
 */
export class StatusOnlyChanges {
  readonly #seen = new Map<string, string>();

  /**
   * True when `obj`, the cache's copy of `key` after a change, differs from the one last seen only in status and
   * bookkeeping (resourceVersion, managed fields). `present` is false for a delete, which always counts.
   */
  onlyStatus(key: string, obj: KubeObject, present: boolean): boolean {
    if (!present) {
      this.#seen.delete(key);
      return false;
    }
    const digest = digestOf(obj);
    const previous = this.#seen.get(key);
    this.#seen.set(key, digest);
    return previous === digest;
  }
}

function digestOf(obj: KubeObject): string {
  const { uid, generation, deletionTimestamp, labels, annotations, finalizers, ownerReferences } = obj.metadata ?? {};
  const what = JSON.stringify([uid, generation, deletionTimestamp, labels, annotations, finalizers, ownerReferences]);
  return createHash('sha1').update(what).digest('base64');
}
