import { createInformer, type Informer, type InformerErrorHandler, type InformerOptions } from './informer.ts';
import type { KubeConnection } from './kube-config.ts';
import type { ResourceRef } from './resource.ts';
import type { KubeObject } from './types.ts';

type Scope = Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>;

/**
 * Hands out one shared informer per (resource, namespace, selectors), like controller-runtime's cache, so two
 * controllers watching ConfigMaps open one watch. Informers made before {@link start} start with it; later
 * ones start at once.
 */
export interface InformerFactory {
  informer<T extends KubeObject>(resource: ResourceRef, scope?: Scope): Informer<T>;
  start(): void;
  /** Stops every informer for good (see {@link Informer.stop}); a factory is not started again. */
  stop(): void;
  /** Resolves once every informer handed out so far has synced. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

export interface InformerFactoryOptions {
  /** Hears every informer's recovered failures. */
  onError?: (resource: ResourceRef, ...args: Parameters<InformerErrorHandler>) => void;
  /** Objects per list request for every informer (see {@link InformerOptions.pageSize}). */
  pageSize?: number;
}

/** An {@link InformerFactory} on `conn`. */
export function createInformerFactory(conn: KubeConnection, options: InformerFactoryOptions = {}): InformerFactory {
  const informers = new Map<string, Informer<KubeObject>>();
  let started = false;
  return {
    informer<T extends KubeObject>(resource: ResourceRef, scope: Scope = {}): Informer<T> {
      const id = JSON.stringify([resource.group, resource.version, resource.plural, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? '']);
      let informer = informers.get(id);
      if (!informer) {
        const { onError, pageSize } = options;
        informer = createInformer<KubeObject>(conn, resource, {
          ...scope,
          ...(pageSize ? { pageSize } : {}),
          ...(onError ? { onError: (err, info) => onError(resource, err, info) } : {}),
        });
        informers.set(id, informer);
        if (started) informer.start();
      }
      return informer as Informer<T>;
    },
    start() {
      started = true;
      for (const informer of informers.values()) informer.start();
    },
    stop() {
      started = false;
      for (const informer of informers.values()) informer.stop();
    },
    async waitForSync(signal) {
      await Promise.all([...informers.values()].map((informer) => informer.waitForSync(signal)));
    },
  };
}
