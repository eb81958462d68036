import type { preValidationHookHandler } from 'fastify';

/**
 * Query values arrive as text and the API does not coerce types (bodies must be typed JSON), so the
 * integer options are converted here, before validation; anything but digits stays text and fails it.
 */
export function integerQuery(...names: string[]): preValidationHookHandler {
  return (request, _reply, done) => {
    const query = request.query as Record<string, unknown>;
    for (const name of names) {
      const value = query[name];
      if (typeof value === 'string' && /^[0-9]{1,9}$/.test(value)) query[name] = Number(value);
    }
    done();
  };
}
