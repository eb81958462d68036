// How API failures become one readable line: problem details, OAuth errors, status lines, unreachable servers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError, CliError } from '../errors.ts';
import { apiClient, apiError, expectOk, unreachable } from './client.ts';

describe('apiError', () => {
  it("prefers a problem detail's detail over its title", () => {
    const err = apiError(new Response(null, { status: 409, statusText: 'Conflict' }), { title: 'Conflict', status: 409, detail: 'App web already exists.' });
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.message]).toEqual([409, 'App web already exists.']);
  });

  it('uses an OAuth error_description', () => {
    const err = apiError(new Response(null, { status: 400 }), { error: 'expired_token', error_description: 'The device code expired.' });
    expect(err.message).toBe('The device code expired.');
  });

  it('falls back to the status line', () => {
    expect(apiError(new Response(null, { status: 502, statusText: 'Bad Gateway' }), 'upstream down').message).toBe('502 Bad Gateway');
    expect(apiError(new Response(null, { status: 500 }), { detail: '' }).message).toBe('500 error');
  });

  it('tells the user to sign in on a 401', () => {
    const err = apiError(new Response(null, { status: 401, statusText: 'Unauthorized' }), { title: 'Unauthorized', detail: 'The token is revoked.' });
    expect(err.message).toBe('The token is revoked. (run `cw login`, or set CW_TOKEN)');
  });
});

describe('unreachable', () => {
  it('names the URL and the cause', () => {
    const err = unreachable(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }), 'http://127.0.0.1:9');
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toBe('cannot reach the API at http://127.0.0.1:9 (ECONNREFUSED)');
  });
});

describe('apiClient', () => {
  it("signs the request and throws the server's problem detail", async () => {
    let seen: IncomingHttpHeaders = {};
    const server = createServer((req, res) => {
      seen = req.headers;
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Not Found', status: 404, detail: 'Project p has no app x.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const request = apiClient(url, 'cwt_x').GET('/v1/projects/{projectId}/apps/{appId}', { params: { path: { projectId: 'p', appId: 'x' } } });
      const err = await expectOk(request, url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect([(err as ApiError).status, (err as ApiError).message]).toEqual([404, 'Project p has no app x.']);
      expect(seen.authorization).toBe('Bearer cwt_x');
      expect(seen['user-agent']).toMatch(/^cw\//);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
