import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendProblem } from '../plugins/problem-details.ts';
import { errorResponses } from '../schemas/problem.ts';

/** A dependency the API needs to do real work; `check` throws when it is not reachable. */
export interface ReadinessCheck {
  name: string;
  check: (signal: AbortSignal) => Promise<void>;
}

const checkTimeoutMs = 2_000;
const tags = ['health'];

const Alive = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({
  status: Type.Literal('ok'),
  checks: Type.Array(Type.String(), { description: 'The dependencies checked, all reachable.' }),
});

/** `/healthz`: the process serves. `/readyz`: every dependency answers, else 503 naming the ones that do not. */
export function healthRoutes(app: FastifyInstance, checks: ReadinessCheck[]): void {
  app.get('/healthz', { config: { auth: false }, schema: { tags, summary: 'Liveness: the process serves (not rate limited)', response: { 200: Alive } } }, async () => ({ status: 'ok' as const }));
  const readiness = {
    tags,
    summary: 'Readiness: every dependency answers within 2 s (not rate limited)',
    description: 'The kube-apiserver, and the object store and runtime engine where configured. 503 names the ones that do not answer.',
    response: { 200: Ready, ...errorResponses(503) },
  };
  app.get('/readyz', { config: { auth: false }, schema: readiness }, async (_request, reply) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await check(AbortSignal.timeout(checkTimeoutMs));
          return undefined;
        } catch {
          return name;
        }
      }),
    );
    const failing = results.filter((name): name is string => name !== undefined);
    if (failing.length > 0) return sendProblem(reply, 503, `Not ready: ${failing.join(', ')} not reachable.`, { 'retry-after': '5' });
    return { status: 'ok' as const, checks: checks.map((c) => c.name) };
  });
}
