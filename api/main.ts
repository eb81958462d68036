import { loadKubeConnection, pingApiServer } from '../src/kube/index.ts';
import { startServer } from './server.ts';

/**
 * `cw-api`: the platform API server. Configuration from the environment: KUBECONFIG (else in-cluster),
 * CW_API_HOST (default 127.0.0.1), CW_API_PORT (default 8080).
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kube = loadKubeConnection(env.KUBECONFIG || undefined);
  await startServer(
    { readiness: [{ name: 'kube-apiserver', check: (signal) => pingApiServer(kube, signal) }] },
    { host: env.CW_API_HOST ?? '127.0.0.1', port: Number(env.CW_API_PORT ?? 8080), shutdownGraceMs: 10_000 },
  );
}
