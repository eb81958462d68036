// The cache half of bench/operator-memory.ts: what holding every RuntimeApp of `namespace` costs a bare Node
// process (run with --expose-gc), V8 heap after a full GC, per object, three ways: the whole objects as one
// list answers them (managedFields included: what the informer cached before it dropped them), the informer's
// cache as every process has it now (managedFields dropped), and cw-runtime's projection. Argument: JSON
// {kubeconfig, namespace}; prints one JSON line.
import { projectRuntimeApp } from '../runtime-server/cache-projections.ts';
import { createInformer, loadKubeConnection, type KubeList, type KubeObject } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { resourcePath } from '../src/kube/resource.ts';

const { kubeconfig, namespace } = JSON.parse(process.argv[2] ?? '{}') as { kubeconfig: string; namespace: string };
const conn = loadKubeConnection(kubeconfig);
const gc = globalThis.gc ?? (() => {});
const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);

/**
 * Heap per object that `hold` keeps reachable: the heap with its result held less the heap once it is let go,
 * both read after every request has finished, so what the requests themselves left behind cancels out.
 */
async function perObject(hold: () => Promise<readonly unknown[]>): Promise<{ objects: number; bytes: number }> {
  let held: readonly unknown[] | undefined = await hold();
  const objects = held.length;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const holding = heap();
  held = undefined;
  const released = heap();
  return { objects, bytes: Math.round((holding - released) / objects) };
}

async function informerCache(project?: (obj: KubeObject) => KubeObject): Promise<readonly KubeObject[]> {
  const informer = createInformer<KubeObject>(conn, RUNTIME_APPS, { namespace, ...(project ? { project } : {}) });
  informer.start();
  await informer.waitForSync();
  informer.stop();
  return informer.list();
}

const whole = await perObject(async () => {
  const pages: KubeObject[] = [];
  let next: string | undefined;
  do {
    const page = await conn.api.request<KubeList<KubeObject>>('GET', resourcePath(RUNTIME_APPS, namespace), { query: { limit: 500, continue: next } });
    pages.push(...page.items);
    next = page.metadata?.continue;
  } while (next);
  return pages;
});
const cached = await perObject(() => informerCache());
const projected = await perObject(() => informerCache(projectRuntimeApp));
process.stdout.write(`${JSON.stringify({ whole, cached, projected })}\n`);
