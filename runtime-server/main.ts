import { createLogger } from '../src/logging/log.ts';
import type { RuntimeServerConfig } from './config.ts';
import { RuntimeServer } from './server.ts';

/**
 * `cw-runtime`: serves every RuntimeApp's active build on workerd behind one HTTP entry point (apps by
 * `Host`). Stateless and leaderless: run as many replicas as traffic needs; each reports itself (its
 * RuntimeReplica and Lease), so nothing is configured with its address. Configuration is the environment,
 * read by `runtimeServerConfig` before anything starts (`docs/runtime.md`, "Running the runtime"). SIGTERM
 * or SIGINT stops it gracefully; a second signal exits at once.
 */
export async function main(config: RuntimeServerConfig): Promise<void> {
  const log = createLogger({ level: config.logLevel }, { component: 'cw-runtime' });
  const server = new RuntimeServer(config, log);
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    log.info('received signal, shutting down', { signal });
    void server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await server.start();
  } catch (err) {
    if (signalled) return; // stopping while starting: the signal handler exits
    await server.stop().catch(() => {});
    throw err;
  }
}
