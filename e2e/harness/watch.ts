import { createInformer, type KubeConnection, type KubeObject, type ResourceRef } from '../../src/kube/index.ts';

/**
 * Watches `resource` (in `namespace`, or everywhere) until `done` holds for the objects seen, and answers
 * them; rejects after `timeoutMs`. A wait on the apiserver's own events, for state other processes write:
 * no polling interval to tune, and it sees the moment the state is reached.
 */
export function watchUntil<T extends KubeObject>(
  conn: KubeConnection,
  resource: ResourceRef,
  options: { namespace?: string; timeoutMs: number; what: string },
  done: (objects: readonly T[]) => boolean,
): Promise<T[]> {
  const informer = createInformer<T>(conn, resource, options.namespace ? { namespace: options.namespace } : {});
  return new Promise<T[]>((resolve, reject) => {
    let finished = false;
    const finish = (err: Error | undefined) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      informer.stop();
      if (err) reject(err);
      else resolve([...informer.list()]);
    };
    const timer = setTimeout(() => finish(new Error(`${options.what}: not within ${options.timeoutMs} ms`)), options.timeoutMs);
    const check = () => {
      if (informer.hasSynced() && done(informer.list())) finish(undefined);
    };
    informer.onChange(check);
    informer.start();
    informer.waitForSync().then(check, (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))));
  });
}
