import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DependencyReport } from '../dependencies.ts';

const tags = ['health'];

const Alive = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({
  status: Type.Literal('ok'),
  dependencies: Type.Array(
    Type.Object({
      name: Type.String({ description: 'kube-apiserver, object-store, runtime engine or database engine.' }),
      up: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether it answered its last check; null until checked once.' }),
      since: Type.Optional(Type.String({ format: 'date-time', description: 'Since when it has been up, or down.' })),
    }),
    { description: 'What the API works with, as its background checks (every 10 s) last found them.' },
  ),
});

/**
 * `/healthz`: the process serves. `/readyz`: it can serve (it listens only once its caches are filled), whatever
 * its dependencies do; their states are in the body and in `/metrics`, not a reason to leave the Service.
 */
export function healthRoutes(app: FastifyInstance, dependencies: DependencyReport | undefined): void {
  app.get('/healthz', { config: { auth: false }, schema: { tags, summary: 'Liveness: the process serves (not rate limited)', response: { 200: Alive } } }, async () => ({ status: 'ok' as const }));
  const readiness = {
    tags,
    summary: 'Readiness: the process can serve (not rate limited); the states of its dependencies, which never make it unready',
    description:
      'Always 200 once the API listens: a dependency that is down (cw-db, the bucket, the runtime, the apiserver) fails the routes that need it with their own problem details, and must not take every API pod out of its Service. Each dependency is also the gauge `cloudwright_api_dependency_up` on the metrics port.',
    response: { 200: Ready },
  };
  app.get('/readyz', { config: { auth: false }, schema: readiness }, async () => ({
    status: 'ok' as const,
    dependencies: (dependencies?.states() ?? []).map(({ name, up, since }) => ({ name, up: up ?? null, ...(since ? { since } : {}) })),
  }));
}
