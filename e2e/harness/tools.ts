import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: e2e/harness/../.. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The Kubernetes version `helm template` renders the chart for: the oldest its `kubeVersion` allows, so the tests
 * prove it renders there (helm built from source assumes 1.20 without a cluster to ask).
 */
export const CHART_KUBE_VERSION = '1.35.0';

/**
 * Path of a tool provisioned by `make setup` into .tools/bin (links into the machine-wide cache).
 * `CW_TOOL_<NAME>` overrides it, for running against binaries built elsewhere.
 */
export function toolPath(name: 'cw-controlplane' | 'coredns' | 'helm' | 'kube-router' | 'kubectl' | 'minio' | 'moto_server' | 'node' | 'pebble' | 'pebble-challtestsrv' | 'verdaccio'): string {
  const override = process.env[`CW_TOOL_${name.toUpperCase().replace(/-/g, '_')}`];
  const path = override ?? join(repoRoot, '.tools', 'bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not installed at ${path}: run \`make setup\``);
  return path;
}
