import Fastify, { type FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { errorHandler } from '../errors.ts';
import { gitAuth, principalOf, type GitAuthOptions } from './git-auth.ts';
import { ProjectTokens } from './project-tokens.ts';
import { MemoryProjectTokenSource } from './testing/memory-project-token-source.ts';
import { mintToken } from './token.ts';

const SECRET = 's'.repeat(40);
const read = mintToken({ sub: 'reader', scopes: ['read'] }, SECRET);
const write = mintToken({ sub: 'writer', scopes: ['write'] }, SECRET);
const proxy = mintToken({ sub: 'edge-proxy', scopes: ['write'] }, SECRET);
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let app: FastifyInstance;
afterEach(() => app?.close());

async function build(options: Partial<GitAuthOptions> = {}, logs?: string[]): Promise<FastifyInstance> {
  const stream = new Writable({ write: (chunk, _enc, done) => (logs?.push(String(chunk)), done()) });
  app = Fastify({ logger: logs ? { level: 'trace', stream } : false });
  errorHandler(app);
  gitAuth(app, { tokenSecret: SECRET, ...options });
  const who = async (request: Parameters<typeof principalOf>[0]) => {
    const { name, tokenSubject, forwarded } = principalOf(request);
    return { name, tokenSubject, forwarded };
  };
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
  app.get('/o/r/info/refs', { config: { scope: 'read' } }, who);
  app.post('/o/r/git-receive-pack', { config: { scope: 'write' } }, who);
  app.get('/undeclared', who);
  app.get('/metrics', { config: { scope: 'read' } }, who);
  app.put('/:owner/:repo', { config: { scope: 'write' } }, who);
  app.get('/:owner/:repo/info/refs', { config: { scope: 'read' } }, who);
  app.post('/:owner/:repo/info/lfs/objects/batch', { config: { scope: 'read' } }, who);
  app.get('/:owner/:repo/api/tree/*', { config: { scope: 'read' } }, who);
  await app.ready();
  return app;
}

describe('gitAuth', () => {
  it('answers 401 with a Basic challenge and a JSON body when there are no credentials', async () => {
    await build();
    const res = await app.inject({ url: '/o/r/info/refs' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="cw-git", charset="UTF-8"');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: 'unauthenticated', message: expect.stringMatching(/^Authentication required/), retryable: false });
  });

  it('accepts the token as a Bearer token, as the Basic password, or as the Basic user with no password', async () => {
    await build();
    for (const authorization of [`Bearer ${read}`, `bearer ${read}`, basic('x', read), basic('', read), basic(read, '')]) {
      const res = await app.inject({ url: '/o/r/info/refs', headers: { authorization } });
      expect(res.statusCode, authorization.slice(0, 12)).toBe(200);
      expect(res.json()).toEqual({ name: 'reader', tokenSubject: 'reader', forwarded: false });
    }
  });

  it.each([
    ['an invalid token', `Bearer ${read.slice(0, -3)}abc`, /signature is invalid/],
    ['a token of another secret', `Bearer ${mintToken({ sub: 'x', scopes: ['read'] }, 'o'.repeat(32))}`, /signature is invalid/],
    ['an expired token', `Bearer ${mintToken({ sub: 'x', scopes: ['read'], ttlSeconds: 1 }, SECRET, Date.now() - 5000)}`, /expired/],
    ['Basic without a token', basic('', ''), /carry no token/],
    ['Basic with a user name and no password', basic('git', ''), /malformed/],
    ['Basic that is not user:password', `Basic ${Buffer.from('just-a-token').toString('base64')}`, /malformed/],
    ['another scheme', `Digest ${read}`, /Unsupported Authorization scheme/],
    ['a platform token', 'Bearer cwt_0123456789abcdefghijABCDEFGHIJ0123456789', /malformed/],
  ])('refuses %s with 401 and the challenge', async (_what, authorization, message) => {
    await build();
    const res = await app.inject({ url: '/o/r/info/refs', headers: { authorization } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="cw-git"/);
    expect(res.json().message).toMatch(message);
  });

  it('answers 403 when the token lacks the route scope; write implies read', async () => {
    await build();
    const denied = await app.inject({ method: 'POST', url: '/o/r/git-receive-pack', headers: { authorization: `Bearer ${read}` } });
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['www-authenticate']).toBeUndefined();
    expect(denied.json()).toEqual({ error: 'forbidden', message: 'This needs the "write" scope; the access token has: read.', retryable: false });
    expect((await app.inject({ method: 'POST', url: '/o/r/git-receive-pack', headers: { authorization: `Bearer ${write}` } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/o/r/info/refs', headers: { authorization: `Bearer ${write}` } })).statusCode).toBe(200);
  });

  it('serves public routes without credentials, and authenticates routes that declare nothing and unknown paths', async () => {
    await build();
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/undeclared' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/undeclared', headers: { authorization: `Bearer ${read}` } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/no/such/route' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/no/such/route', headers: { authorization: `Bearer ${read}` } })).statusCode).toBe(404);
  });

  it('takes the principal from a trusted proxy header, still requiring the proxy token', async () => {
    await build({ trustedProxies: ['127.0.0.0/8'], principalHeader: 'X-Remote-User' });
    const headers = { authorization: `Bearer ${proxy}`, 'x-remote-user': 'alice@example.com' };
    const res = await app.inject({ method: 'POST', url: '/o/r/git-receive-pack', headers });
    expect(res.json()).toEqual({ name: 'alice@example.com', tokenSubject: 'edge-proxy', forwarded: true });
    expect((await app.inject({ url: '/o/r/info/refs', headers: { authorization: `Bearer ${proxy}` } })).json().name).toBe('edge-proxy');
    const unauthenticated = await app.inject({ url: '/o/r/info/refs', headers: { 'x-remote-user': 'alice@example.com' } });
    expect(unauthenticated.statusCode).toBe(401);
    const readOnlyProxy = await app.inject({ method: 'POST', url: '/o/r/git-receive-pack', headers: { ...headers, authorization: `Bearer ${read}` } });
    expect(readOnlyProxy.statusCode).toBe(403);
    const bad = await app.inject({ url: '/o/r/info/refs', headers: { ...headers, 'x-remote-user': 'x'.repeat(300) } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_request');
    const twice = await app.inject({ url: '/o/r/info/refs', headers: { ...headers, 'x-remote-user': ['alice', 'bob'] } });
    expect(twice.statusCode).toBe(400);
  });

  it('ignores the principal header from a peer that is not a trusted proxy', async () => {
    await build({ trustedProxies: ['10.0.0.0/8'] });
    const res = await app.inject({ url: '/o/r/info/refs', headers: { authorization: `Bearer ${read}`, 'x-forwarded-user': 'mallory' } });
    expect(res.json()).toEqual({ name: 'reader', tokenSubject: 'reader', forwarded: false });
  });

  it('lets a token with repos reach only those repositories, on every kind of route', async () => {
    await build();
    const acme = mintToken({ sub: 'ci', scopes: ['write'], repos: ['acme', 'beta/site'] }, SECRET);
    const headers = { authorization: `Bearer ${acme}` };
    for (const url of ['/acme/site/info/refs', '/acme/other.git/info/refs', '/beta/site/api/tree/main/', '/beta/site.git/info/refs']) {
      expect((await app.inject({ url, headers })).statusCode, url).toBe(200);
    }
    expect((await app.inject({ method: 'PUT', url: '/acme/new', headers })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/acme/site/info/lfs/objects/batch', headers })).statusCode).toBe(200);
    for (const [method, url] of [
      ['GET', '/beta/other/info/refs'],
      ['GET', '/acme2/site/info/refs'],
      ['POST', '/other/site/info/lfs/objects/batch'],
      ['GET', '/other/site/api/tree/main/'],
      ['PUT', '/other/new'],
    ] as const) {
      const res = await app.inject({ method, url, headers });
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toEqual({ error: 'forbidden', message: `This token reaches only acme/*, beta/site; not ${url.split('/').slice(1, 3).join('/')}.`, retryable: false });
    }
  });

  it('keeps a token that reaches some repositories off the routes about none, and lets a path with no route answer 404', async () => {
    await build();
    const headers = { authorization: `Bearer ${mintToken({ sub: 'ci', scopes: ['write'], repos: ['acme'] }, SECRET)}` };
    const metrics = await app.inject({ url: '/metrics', headers });
    expect(metrics.statusCode).toBe(403);
    expect(metrics.json().message).toBe('This route is not about one repository: it needs a token that reaches every repository, and this one reaches only acme/*.');
    expect((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${read}` } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/no/such/route/here', headers })).statusCode).toBe(404);
  });

  it('authenticates a project git token as its maker, reaching its project only', async () => {
    const source = new MemoryProjectTokenSource();
    source.addProject('acme', ['ada']);
    source.addProject('beta', ['bob']);
    const { token, resource } = source.addToken('acme', 'ada', { scopes: ['read'] });
    await build({ projectTokens: new ProjectTokens(source) });
    for (const authorization of [`Bearer ${token}`, basic('git', token), basic('ada', token)]) {
      const res = await app.inject({ url: '/acme/site/info/refs', headers: { authorization } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ name: 'ada', tokenSubject: resource.metadata?.name, forwarded: false });
    }
    const other = await app.inject({ url: '/beta/site/info/refs', headers: { authorization: basic('git', token) } });
    expect(other.statusCode).toBe(403);
    expect(other.json().message).toBe('This token reaches only acme/*; not beta/site.');
    const push = await app.inject({ method: 'PUT', url: '/acme/new', headers: { authorization: `Bearer ${token}` } });
    expect(push.statusCode).toBe(403);
    expect(push.json().message).toBe('This needs the "write" scope; the access token has: read.');
    resource.spec.revoked = true;
    const revoked = await app.inject({ url: '/acme/site/info/refs', headers: { authorization: basic('git', token) } });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.headers['www-authenticate']).toMatch(/^Basic realm="cw-git"/);
    expect(revoked.json().message).toBe(`The git token ${resource.metadata?.name} was revoked.`);
  });

  it("keeps a project token off cw-git's own repositories though its project is named like their owner (found in review)", async () => {
    const source = new MemoryProjectTokenSource();
    source.addProject('templates', ['mallory']);
    source.serviceRepositories.add('templates/starter');
    const { token } = source.addToken('templates', 'mallory');
    await build({ projectTokens: new ProjectTokens(source) });
    for (const [method, url] of [
      ['GET', '/templates/starter/info/refs'],
      ['POST', '/templates/starter/info/lfs/objects/batch'],
      ['GET', '/templates/starter/api/tree/main'],
    ] as const) {
      const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
      expect([url, res.statusCode, res.json().message]).toEqual([url, 403, "templates/starter is one of cw-git's own repositories, not a project's: no project token reaches it."]);
    }
    expect((await app.inject({ url: '/templates/site/info/refs', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
  });

  it('refuses project git tokens where cw-git does not watch them', async () => {
    await build();
    const res = await app.inject({ url: '/acme/site/info/refs', headers: { authorization: `Bearer cwg_${'a'.repeat(43)}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/not accepted by this cw-git \(kubernetes.project_tokens is off\)/);
  });

  it('never logs a token, accepted or refused', async () => {
    const logs: string[] = [];
    await build({}, logs);
    await app.inject({ url: '/o/r/info/refs', headers: { authorization: `Bearer ${read}` } });
    await app.inject({ url: '/o/r/info/refs', headers: { authorization: `Bearer ${read.slice(0, -4)}AAAA` } });
    await app.inject({ url: '/o/r/info/refs', headers: { authorization: basic('git', write) } });
    expect(logs.length).toBeGreaterThan(0);
    const all = logs.join('');
    for (const secret of [read, read.slice(0, -4), write, SECRET, read.split('.')[2] ?? '']) expect(all).not.toContain(secret);
  });
});
