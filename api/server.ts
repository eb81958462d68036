import type { FastifyInstance } from 'fastify';
import type { LoggerOptions } from 'pino';
import { buildApp, type AppDependencies } from './app.ts';
import { isAddressOrRange } from '../src/address-range.ts';

export interface ServerOptions {
  host: string;
  port: number;
  /** Fastify's `trustProxy`: which proxies' `X-Forwarded-For` names the client (`trustProxyFromEnv`). */
  trustProxy?: boolean | string[];
  /** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
  shutdownGraceMs: number;
}

/** The logger cw-api runs with: JSON lines on standard output, at `CW_LOG_LEVEL` (default `info`). */
export function serverLoggerOptions(level = process.env.CW_LOG_LEVEL ?? 'info'): LoggerOptions {
  return { level, redact: ['req.headers.authorization'] };
}

/**
 * `CW_API_TRUST_PROXY`: unset or `false`, nothing is trusted (the client is the peer address); `true`, every
 * proxy; or a comma-separated list of proxy addresses and CIDR ranges (`10.0.0.0/8,127.0.0.1`). Behind an ingress
 * the peer is the ingress for every caller, so per-address limits (requests without a token, starting device
 * sign-ins) would be shared by all of them without it.
 *
 * @throws Error naming the variable for a value that is none of these.
 */
export function trustProxyFromEnv(value: string | undefined): boolean | string[] | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
  throw new Error(`CW_API_TRUST_PROXY must be true, false or a comma-separated list of addresses and CIDR ranges, not ${JSON.stringify(text)}`);
}

/** Owns listening and shutdown; `app.ts` owns everything the server does. */
export async function startServer(deps: AppDependencies, options: ServerOptions): Promise<FastifyInstance> {
  const app = await buildApp(deps, { logger: serverLoggerOptions(), trustProxy: options.trustProxy });
  await app.listen({ host: options.host, port: options.port });
  const shutdown = (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), options.shutdownGraceMs);
    force.unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return app;
}
