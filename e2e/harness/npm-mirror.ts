// An npm registry mirror for the local node's build pods, which cannot leave the node's bridge: Verdaccio on the
// node's address, proxying the registry this machine uses. It is what docs/push-to-deploy.md asks of a cluster
// whose builds may not reach the internet (a mirror at a stable address, allowed by builds.egress.registries).
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { toolPath } from './tools.ts';

export interface NpmMirror {
  service: Service;
  /** What a build sets as NPM_CONFIG_REGISTRY. */
  url: string;
  port: number;
}

/** The machine's registry (npm's own setting when npm runs us, else npm's default), which the mirror proxies. */
function upstream(): string {
  return process.env.npm_config_registry ?? 'https://registry.npmjs.org/';
}

/**
 * Starts Verdaccio on a free port of `host`. Its storage is kept beside its installation in the machine's cache,
 * so packages come from the upstream registry once per machine, as a hosted platform's build cache would give.
 */
export async function startNpmMirror(stateDir: string, host: string): Promise<NpmMirror> {
  const command = toolPath('verdaccio');
  const storage = join(dirname(dirname(dirname(realpathSync(command)))), 'storage');
  mkdirSync(storage, { recursive: true });
  const port = await freePort();
  const configPath = join(stateDir, 'verdaccio.yaml');
  // JSON is YAML, which Verdaccio reads. Anyone may read; no one may publish (no user exists to publish as).
  writeFileSync(
    configPath,
    JSON.stringify({
      storage,
      listen: `${host}:${port}`,
      uplinks: { upstream: { url: upstream(), timeout: '60s', max_fails: 5 } },
      packages: { '**': { access: '$all', publish: '$authenticated', proxy: 'upstream' } },
      auth: { htpasswd: { file: join(stateDir, 'verdaccio.htpasswd'), max_users: -1 } },
      web: { enable: false },
      log: { type: 'stdout', format: 'pretty', level: 'warn' },
    }),
  );
  // The machine may reach the registry through a proxy whose CA only the system's bundle holds.
  const systemCas = '/etc/ssl/certs/ca-certificates.crt';
  const service = startService({
    name: 'verdaccio',
    command,
    args: ['--config', configPath],
    logPath: join(stateDir, 'verdaccio.log'),
    env: { ...process.env, ...(existsSync(systemCas) ? { NODE_EXTRA_CA_CERTS: systemCas } : {}) },
  });
  const url = `http://${host}:${port}/`;
  await waitForHttp(service, `${url}-/ping`, 60_000);
  return { service, url, port };
}
