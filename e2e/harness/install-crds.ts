import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CUSTOM_RESOURCE_DEFINITIONS, loadKubeConnection, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { repoRoot } from './tools.ts';
import { watchUntil } from './watch.ts';

interface Crd extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * Server-side applies every CRD in `dir` (default crds/, ours), then `extra`, and waits until each is Established;
 * returns how many.
 */
export async function installCrds(kubeconfig: string, dir = join(repoRoot, 'crds'), extra: readonly KubeObject[] = []): Promise<number> {
  const conn = loadKubeConnection(kubeconfig);
  const client = objectClient<Crd>(conn, CUSTOM_RESOURCE_DEFINITIONS);
  // In name order: the garbage collector's probe (garbage-collector.ts) relies on which comes last.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const names: string[] = [];
  for (const file of files) {
    const crd = parse(readFileSync(join(dir, file), 'utf8')) as Crd;
    await client.apply(crd, { fieldManager: 'cloudwright-dev', force: true });
    names.push(crd.metadata?.name ?? file);
  }
  for (const crd of extra) {
    await client.apply(crd, { fieldManager: 'cloudwright-dev', force: true });
    names.push(crd.metadata?.name ?? '');
  }
  const established = (crd: Crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
  await watchUntil<Crd>(conn, CUSTOM_RESOURCE_DEFINITIONS, { timeoutMs: 30_000, what: `CRDs ${names.join(', ')} Established` }, (crds) =>
    names.every((name) => crds.some((crd) => crd.metadata?.name === name && established(crd))),
  );
  return names.length;
}
