import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { problemDetails } from './plugins/problem-details.ts';
import { healthRoutes, type ReadinessCheck } from './routes/health.ts';

export interface AppDependencies {
  readiness: ReadinessCheck[];
}

/** Builds the API: plugins first, then every route, registered explicitly. `server.ts` owns listening. */
export async function buildApp(deps: AppDependencies, options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit: 1024 * 1024, ...options });
  problemDetails(app);
  healthRoutes(app, deps.readiness);
  await app.ready();
  return app;
}
