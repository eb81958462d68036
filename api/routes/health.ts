import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../plugins/problem-details.ts';

/** A dependency the API needs to do real work; `check` throws when it is not reachable. */
export interface ReadinessCheck {
  name: string;
  check(signal: AbortSignal): Promise<void>;
}

const checkTimeoutMs = 2_000;

/** `/healthz`: the process serves. `/readyz`: every dependency answers, else 503 naming the ones that do not. */
export function healthRoutes(app: FastifyInstance, checks: ReadinessCheck[]): void {
  app.get('/healthz', { config: { auth: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: false }, schema: { hide: true } }, async (_request, reply) => {
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
    return { status: 'ok', checks: checks.map((c) => c.name) };
  });
}
