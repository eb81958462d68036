import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { CUSTOM_RESOURCE_DEFINITIONS, loadKubeConnection, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { repoRoot } from './tools.ts';


interface Crd extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

/** Server-side applies every CRD in crds/ and waits until each is Established; returns how many. */
export async function installCrds(kubeconfig: string): Promise<number> {
  const client = objectClient<Crd>(loadKubeConnection(kubeconfig), CUSTOM_RESOURCE_DEFINITIONS);
  const dir = join(repoRoot, 'crds');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  const names: string[] = [];
  for (const file of files) {
    const crd = parse(readFileSync(join(dir, file), 'utf8')) as Crd;
    await client.apply(crd, { fieldManager: 'cloudwright-dev', force: true });
    names.push(crd.metadata?.name ?? file);
  }
  const deadline = Date.now() + 30_000;
  for (const name of names) {
    for (;;) {
      const crd = await client.get('', name);
      if (crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within 30 s`);
      await sleep(100);
    }
  }
  return names.length;
}
