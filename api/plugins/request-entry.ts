import type { FastifyInstance } from 'fastify';
import type { AnswerUnmatched } from '../../src/fastify-plugins/not-found.ts';
import { echoRequestId } from '../../src/fastify-plugins/request-id.ts';
import type { CallerRateLimiter } from './rate-limit.ts';

/**
 * cw-api's one global `onRequest` hook, the first step of every request: its id echoed on the response, and
 * a request no route matches limited by its client address (429 once that is spent) and answered 404 or
 * 405 before its body is read. Routes add their own hooks after it (authentication, their caller's limit).
 *
 * One hook rather than one per concern: every hook is a step of Fastify's hook runner on every request, and
 * on this path each one costs measurably (bench/README.md, sixth and tenth passes).
 */
export function requestEntry(app: FastifyInstance, limiter: Pick<CallerRateLimiter, 'spendUnmatched'>, answerUnmatched: AnswerUnmatched): void {
  // Callback style: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply);
    if (!request.is404) return done();
    // When the limit answers 429, `done` is not called and Fastify stops the chain; nor after the 404/405.
    if (limiter.spendUnmatched(request, reply)) answerUnmatched(request, reply);
  });
}
