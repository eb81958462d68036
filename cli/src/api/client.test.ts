// How API failures become one readable line: problem details, OAuth errors, status lines, unreachable servers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError, CliError } from '../errors.ts';
import { apiClient, apiError, expectOk, RATE_LIMIT_WAITS, unreachable } from './client.ts';

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

  it('waits out a 429 that asks for a few seconds and sends the request again, body and all', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        const limited = bodies.length < RATE_LIMIT_WAITS.attempts;
        res.writeHead(limited ? 429 : 201, { 'content-type': 'application/json', ...(limited ? { 'retry-after': '0' } : {}) });
        res.end(JSON.stringify(limited ? { detail: 'Write limit of 10 writes per second exceeded; retry in 0 s.' } : { id: 'shop' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const made = await expectOk(apiClient(url, 'cwt_x').POST('/v1/projects', { body: { project_id: 'shop', name: 'Shop' } }), url);
      expect(made).toEqual({ id: 'shop' });
      expect(bodies).toEqual(Array(RATE_LIMIT_WAITS.attempts).fill(JSON.stringify({ project_id: 'shop', name: 'Shop' })));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports a 429 that asks for a longer wait than it waits by itself, at once', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': String(RATE_LIMIT_WAITS.maxSeconds + 1) });
      res.end(JSON.stringify({ title: 'Too Many Requests', status: 429, detail: 'Rate limit of 1 requests per minute exceeded; retry in 11 s.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const err = await expectOk(apiClient(url, 'cwt_x').GET('/v1/projects'), url).catch((e: unknown) => e);
      expect([(err as ApiError).status, (err as ApiError).message]).toEqual([429, 'Rate limit of 1 requests per minute exceeded; retry in 11 s.']);
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each([
    ['an empty Retry-After', { 'retry-after': ' ' }, undefined],
    ['an upload (a body not sent twice)', { 'retry-after': '0' }, 'application/octet-stream'],
  ])('reports a 429 with %s at once, sending the request once', async (_case, headers, uploadType) => {
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(429, { 'content-type': 'application/problem+json', ...headers });
      res.end(JSON.stringify({ title: 'Too Many Requests', status: 429, detail: 'Limited.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const api = apiClient(url, 'cwt_x');
      // As `cw deploy` uploads: bytes as they are, not JSON.
      const request: Promise<{ response: Response; error?: unknown }> = uploadType
        ? api.POST('/v1/projects/{projectId}/apps/{appId}/deployments', {
            params: { path: { projectId: 'p', appId: 'a' } },
            body: new Uint8Array(16) as never,
            bodySerializer: (body: unknown) => body,
            headers: { 'content-type': uploadType },
          })
        : api.GET('/v1/projects');
      const err = await expectOk(request, url).catch((e: unknown) => e);
      expect([(err as ApiError).status, (err as ApiError).message]).toEqual([429, 'Limited.']);
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
