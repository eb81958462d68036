import { join } from 'node:path';
import { freePort, PortTakenError, startService, waitForHttp, type Service } from './process.ts';
import { repoRoot, toolPath } from './tools.ts';
import { dnsTestEnv } from './dns-env.ts';
import { RUNTIME_STATUS_TOKEN } from './runtime-status-token.ts';

export interface ApiServer {
  service: Service;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Where its `/metrics` is served (CW_API_METRICS_PORT). */
  metricsUrl: string;
  stop(): Promise<void>;
}

export interface ApiServerOptions {
  kubeconfig: string;
  /** Where the log goes (`cw-api-<port>.log`). */
  stateDir: string;
  /** Extra environment, e.g. CW_LOG_LEVEL. */
  env?: NodeJS.ProcessEnv;
  /** The port to listen on (default: a free one), for a test that must name the API's URL before it starts. */
  port?: number;
}

/**
 * Starts a real `cw-api` (`node bin/cw-api.ts`) in a child process against the given control plane, on a
 * free loopback port, and resolves once it serves: cw-api listens only after its caches have synced. A free
 * port taken by another process before cw-api listened on it is given up for another one.
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(opts, opts.port ?? (await freePort()));
    } catch (err) {
      if (!(err instanceof PortTakenError) || opts.port !== undefined || attempt >= 3) throw err;
    }
  }
}

async function startOn(opts: ApiServerOptions, port: number): Promise<ApiServer> {
  const metricsPort = await freePort();
  const service = startService({
    name: 'cw-api',
    command: toolPath('node'),
    args: [join(repoRoot, 'bin/cw-api.ts')],
    logPath: join(opts.stateDir, `cw-api-${port}.log`),
    env: {
      ...process.env,
      ...dnsTestEnv(),
      CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
      // A dependency going down shows within a second, so a test waits for that, not for the default 10 s.
      CW_API_DEPENDENCY_CHECK_SECONDS: '1',
      ...opts.env,
      KUBECONFIG: opts.kubeconfig,
      CW_API_HOST: '127.0.0.1',
      CW_API_PORT: String(port),
      CW_API_METRICS_PORT: String(metricsPort),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(service, `${url}/healthz`, 60_000);
  } catch (err) {
    await service.stop();
    throw err;
  }
  return { service, url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, stop: () => service.stop() };
}
