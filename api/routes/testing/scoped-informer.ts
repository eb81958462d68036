import type { Informer, KubeObject } from '../../../src/kube/index.ts';

/**
 * A view of a shared informer showing only the objects `keep` accepts: route tests run the DNS controllers
 * in their own process on the cluster every test file shares, and each must reconcile its own projects only
 * (as an operator with CW_WATCH_NAMESPACE does), never another file's.
 */
export function scopedInformer<T extends KubeObject>(informer: Informer<T>, keep: (obj: KubeObject) => boolean): Informer<T> {
  return {
    resource: informer.resource,
    onChange: (handler) => informer.onChange((obj) => keep(obj) && handler(obj)),
    onQuietChange: (handler) => informer.onQuietChange((obj) => keep(obj) && handler(obj)),
    get: (key) => {
      const obj = informer.get(key);
      return obj && keep(obj) ? obj : undefined;
    },
    list: (namespace) => informer.list(namespace).filter(keep),
    changes: () => informer.changes(),
    hasSynced: () => informer.hasSynced(),
    waitForSync: (signal) => informer.waitForSync(signal),
    start: () => informer.start(),
    stop: () => informer.stop(),
  };
}
