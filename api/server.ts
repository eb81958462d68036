import { guardConnections, type ConnectionLimits } from '../src/connection-guard.ts';
import type { FastifyInstance } from 'fastify';
import type { LoggerOptions } from 'pino';
import { buildApp, type AppDependencies } from './app.ts';

export interface ServerOptions {
  host: string;
  port: number;
  /** Fastify's `trustProxy`: which proxies' `X-Forwarded-For` names the client (CW_API_TRUST_PROXY, api/config.ts). */
  trustProxy?: readonly string[];
  /** The log level (CW_LOG_LEVEL); default `info`. */
  logLevel?: string;
  /** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
  shutdownGraceMs: number;
  /** Connections held at once, in all and per peer address (CW_API_MAX_CONNECTIONS*). */
  connections?: ConnectionLimits;
}

/** The logger cw-api runs with: JSON lines on standard output, at `level` (CW_LOG_LEVEL, default `info`). */
export function serverLoggerOptions(level = 'info'): LoggerOptions {
  return { level, redact: ['req.headers.authorization'] };
}

/** Owns listening and shutdown; `app.ts` owns everything the server does. */
export async function startServer(deps: AppDependencies, options: ServerOptions): Promise<FastifyInstance> {
  const trustProxy = options.trustProxy ? [...options.trustProxy] : undefined;
  const app = await buildApp(deps, { logger: serverLoggerOptions(options.logLevel), trustProxy });
  if (options.connections) guardConnections(app.server, options.connections);
  await app.listen({ host: options.host, port: options.port });
  const shutdown = (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), options.shutdownGraceMs);
    force.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return app;
}
