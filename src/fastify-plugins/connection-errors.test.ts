import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { connectionErrorHandler } from './connection-errors.ts';
import { rawExchange } from './testing/raw-exchange.ts';

/** What a server with the handler answers to `raw` over a fresh connection, up to its closing it. */
function exchange(raw: string): Promise<string> {
  const app = Fastify({ clientErrorHandler: connectionErrorHandler((status, message) => ({ contentType: 'application/x-test', body: `${status}: ${message}` })) });
  app.get('/healthz', async () => 'ok');
  return rawExchange(app, raw);
}

describe('connectionErrorHandler', () => {
  it.each([
    ['a garbled request line', 'GARBAGE\r\n\r\n', 400, 'The request is not valid HTTP.'],
    ['headers past the size limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'The request line and headers are larger than the server accepts.'],
  ])('answers %s in the body the server formats, then closes', async (_name, raw, status, message) => {
    const [head = '', body = ''] = (await exchange(raw)).split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head.toLowerCase()).toContain('content-type: application/x-test');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(body).toBe(`${status}: ${message}`);
  });
});
