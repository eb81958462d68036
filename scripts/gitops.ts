// `make gitops`: Flux's source-controller and kustomize-controller against the control plane of a running `make dev`
// (its .dev/env), in the foreground, reconciling GitRepositories and Kustomizations of every namespace as Flux does
// in a cluster. Ctrl-C stops both. docs/gitops.md walks through pointing them at a repository on cw-git.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFlux, type Flux } from '../e2e/harness/flux.ts';
import { repoRoot } from '../e2e/harness/tools.ts';

const devDir = join(repoRoot, '.dev');
const envFile = join(devDir, 'env');
const stateDir = join(devDir, 'state', 'flux');
const say = (message: string) => process.stdout.write(`gitops: ${message}\n`);

function devKubeconfig(): string {
  if (!existsSync(envFile)) throw new Error('no .dev/env: start `make dev` first (in another terminal), then `make gitops`');
  const line = readFileSync(envFile, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('KUBECONFIG='));
  if (!line) throw new Error('.dev/env names no KUBECONFIG');
  return line.slice('KUBECONFIG='.length);
}

let flux: Flux | undefined;
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    await flux?.stop().catch(() => {});
  }
  process.exit(code);
}

async function main(): Promise<void> {
  mkdirSync(stateDir, { recursive: true });
  flux = await startFlux({ kubeconfig: devKubeconfig(), stateDir, namespace: 'flux-system', watchAllNamespaces: true });
  say(`source-controller and kustomize-controller ready (namespace flux-system; artifacts at ${flux.storageUrl}; logs in .dev/state/flux/*.log)`);
  say('next: a GitRepository and a Kustomization pointing at your cw-git repository (docs/gitops.md); Ctrl-C stops both');
}

process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
main().catch(async (err: Error) => {
  process.stderr.write(`gitops: ${err.message}\n`);
  await stop(1);
});
// Stay up until a signal arrives; a controller that exits ends the run.
setInterval(() => {
  for (const service of flux ? [flux.sourceController, flux.kustomizeController] : []) {
    if (service.child.exitCode !== null && !stopping) {
      process.stderr.write(`gitops: ${service.name} exited with ${service.child.exitCode}; see ${service.logPath}\n`);
      void stop(1);
    }
  }
}, 1000);
