// Flux's source-controller and kustomize-controller (built by `scripts/setup/go-tools.sh flux`) as child processes
// against a control plane, outside any cluster, as Flux runs them in one: KUBECONFIG for the apiserver,
// RUNTIME_NAMESPACE for their own namespace (events, and what they watch unless told to watch all), no leader
// election. source-controller serves the artifacts it fetches over plain HTTP on loopback; kustomize-controller
// downloads them from the address it advertises. Used by e2e/flux-gitops.test.ts and `make gitops`.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isAlreadyExists, loadKubeConnection, NAMESPACES, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { installCrds } from './install-crds.ts';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { repoRoot } from './tools.ts';

/** The binaries and the CRDs' directory `make setup` links into .tools/bin. */
function fluxPath(name: 'source-controller' | 'kustomize-controller' | 'flux-crds'): string {
  const path = join(repoRoot, '.tools', 'bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not installed at ${path}: run \`make setup\` (scripts/setup/go-tools.sh flux)`);
  return path;
}

export interface FluxOptions {
  readonly kubeconfig: string;
  /** Where the logs and source-controller's artifact storage go. */
  readonly stateDir: string;
  /** The controllers' own namespace (created if missing): Flux's `flux-system`. */
  readonly namespace: string;
  /** Reconcile GitRepositories and Kustomizations of every namespace (Flux's default); false: of `namespace` only. */
  readonly watchAllNamespaces: boolean;
  /** Log level of both controllers (`info` by default; `debug` shows each apply). */
  readonly logLevel?: 'debug' | 'info' | 'error';
}

export interface Flux {
  readonly sourceController: Service;
  readonly kustomizeController: Service;
  /** Where source-controller serves artifacts (`--storage-adv-addr`). */
  readonly storageUrl: string;
  stop(): Promise<void>;
}

/** Installs the CRDs, creates the namespace and starts both controllers; resolves once both report ready. */
export async function startFlux(options: FluxOptions): Promise<Flux> {
  // Flux's CRDs (source.toolkit.fluxcd.io, kustomize.toolkit.fluxcd.io), from the module zips.
  await installCrds(options.kubeconfig, fluxPath('flux-crds'));
  await ensureNamespace(options.kubeconfig, options.namespace);
  const storagePath = join(options.stateDir, 'flux-storage');
  mkdirSync(storagePath, { recursive: true });
  const [storagePort, ...probePorts] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const storage = `127.0.0.1:${storagePort}`;
  const env = { ...process.env, KUBECONFIG: options.kubeconfig, RUNTIME_NAMESPACE: options.namespace };
  // Each controller's defaults (:8080 metrics, :9440 health) would collide with each other and with anything else
  // on the machine: every listener gets a loopback port of its own.
  const common = (metrics: number | undefined, health: number | undefined) => [
    `--metrics-addr=127.0.0.1:${metrics}`,
    `--health-addr=127.0.0.1:${health}`,
    '--enable-leader-election=false',
    `--watch-all-namespaces=${options.watchAllNamespaces}`,
    `--log-level=${options.logLevel ?? 'info'}`,
  ];
  const start = (name: 'source-controller' | 'kustomize-controller', args: string[]) => startService({ name, command: fluxPath(name), args, env, logPath: join(options.stateDir, `${name}.log`) });
  const sourceController = start('source-controller', [...common(probePorts[0], probePorts[1]), `--storage-path=${storagePath}`, `--storage-addr=${storage}`, `--storage-adv-addr=${storage}`]);
  // No remote bases: a Kustomization builds from the artifact alone, never fetching from the internet.
  const kustomizeController = start('kustomize-controller', [...common(probePorts[2], probePorts[3]), '--no-remote-bases=true']);
  const stop = async () => {
    await Promise.all([sourceController.stop(5_000), kustomizeController.stop(5_000)]);
  };
  try {
    await Promise.all([waitForHttp(sourceController, `http://127.0.0.1:${probePorts[1]}/readyz`, 60_000), waitForHttp(kustomizeController, `http://127.0.0.1:${probePorts[3]}/readyz`, 60_000)]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { sourceController, kustomizeController, storageUrl: `http://${storage}`, stop };
}

async function ensureNamespace(kubeconfig: string, name: string): Promise<void> {
  try {
    await objectClient<KubeObject>(loadKubeConnection(kubeconfig), NAMESPACES).create({ metadata: { name } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
