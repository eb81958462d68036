// The runtime engine against the real workerd: no other server is needed, so these run as unit tests.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { processAlive } from '../../e2e/harness/process.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { runDirOf } from './data-dir.ts';
import { ArtifactError, BuildLoadError } from '../../src/app-artifacts/errors.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { resolveWorkerdBinary } from '../../src/app-artifacts/workerd-binary.ts';

/**
 * A worker that says which version it is. `/slow` is a long request: it answers its head and a first byte at
 * once (so a test knows it is in flight) and the rest a second later (a request that long is the subject).
 * `/think?ms=N` takes N ms (default 1000) before it answers at all.
 */
function worker(version: string): string {
  return `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/echo') return new Response(request.body, { headers: { 'x-method': request.method } });
    if (url.pathname === '/think') await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('ms') ?? 1000)));
    const answer = { version: ${JSON.stringify(version)}, greeting: env.GREETING ?? null, url: request.url, xff: request.headers.get('x-forwarded-for'), cf: request.cf ?? null };
    if (url.pathname === '/slow') {
      const { readable, writable } = new TransformStream();
      const writer = writable.getWriter();
      void writer.write(new TextEncoder().encode(' ')); // a first byte, so the head goes out now (JSON allows it)
      setTimeout(() => void writer.write(new TextEncoder().encode(JSON.stringify(answer))).then(() => writer.close()), 1000);
      return new Response(readable, { headers: { 'content-type': 'application/json' } });
    }
    return Response.json(answer);
  },
};
`;
}

/** A WebSocket handshake sent by hand to `localhost`: the answer's head (and body, if refused) and the connection, open after a 101. */
/** A WebSocket handshake with the entry point, from `from` (any loopback address: each is a client of its own). */
async function handshake(port: number, from = '127.0.0.1', host = 'localhost'): Promise<{ answer: string; socket: Socket }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
  let answer = '';
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      answer += String(chunk);
      if (answer.includes('\r\n\r\n') && (answer.startsWith('HTTP/1.1 101') || answer.includes('}'))) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData).once('close', () => resolve());
  });
  return { answer, socket };
}

/** Sends a `/slow` request; `inFlight` resolves once its head has arrived, `done` with the whole answer. */
function slowRequest(port: number, host: string) {
  let headArrived: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => (headArrived = resolve));
  return { inFlight, done: send(port, host, '/slow', { onHead: () => headArrived() }) };
}

const artifacts = new MemoryArtifactSource()
  .put('v1', artifactFromFiles({ 'worker.js': worker('v1') }))
  .put('v2', artifactFromFiles({ 'worker.js': worker('v2') }))
  .put('other', artifactFromFiles({ 'worker.js': worker('other') }))
  .put('broken', artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' }))
  .put('throws', artifactFromFiles({ 'worker.js': 'throw new Error("no database configured");\nexport default {};' }))
  .put('never-loads', artifactFromFiles({ 'worker.js': 'while (true) {}\nexport default {};' }))
  .put('bad-flag', artifactFromFiles({ 'worker.js': worker('x'), 'cloudwright.json': '{"compatibility_flags":["no_such_flag_exists"]}' }))
  .put('not-an-artifact', new Uint8Array([1, 2, 3]))
  // JSON modules are handed to workerd as their text: one holding the kinds of text a splice could get wrong.
  .put(
    'json-modules',
    artifactFromFiles({
      'worker.js': "import table from './table.json';\nimport odd from './odd.json';\nexport default { fetch: () => Response.json({ table, odd }) };",
      'table.json': ' [ {"a": 1}, {"b": [true, null, 2.5e3]} ]\n',
      'odd.json': JSON.stringify({ dollar: '$& $1 $$', nul: '\u0000cw-json-0123456789abcdef:0', quote: '"' }),
    }),
  )
  .put(
    'next-like',
    artifactFromFiles({
      'worker.js': `import { handler } from './server/handler.mjs';
export default { fetch: (request, env) => handler(request, env) };`,
      'server/handler.mjs': `export async function handler(request, env) {
  const url = new URL(request.url);
  if (url.pathname === '/favicon-via-binding') return new Response((await env.ASSETS.fetch(new URL('/favicon.ico', request.url))).body);
  return new Response('ssr ' + url.pathname + ' ' + process.env.GREETING);
}`,
      'assets/favicon.ico': 'icon',
      'assets/_next/static/chunk.js': 'console.log("chunk")',
      'cloudwright.json': '{"compatibility_date":"2025-09-01","compatibility_flags":["nodejs_compat"]}',
    }),
  )
  .put(
    'assets-config',
    artifactFromFiles({
      'worker.js': 'export default { fetch(request) { return new Response("worker " + new URL(request.url).pathname); } };',
      'assets/api/x': 'static api',
      'assets/api/docs/y': 'static docs',
      'assets/page.html': 'page',
      'assets/_headers': '/page\n  X-From-Headers: yes\n',
      'assets/_redirects': '/old /page 301\n',
      'cloudwright.json': JSON.stringify({ assets: { run_worker_first: ['/api/*', '!/api/docs/*'] } }),
    }),
  )
  .put(
    'websocket',
    artifactFromFiles({
      'worker.js': `export default { fetch(request) {
  if (request.headers.get('upgrade') !== 'websocket') return new Response('want a websocket', { status: 426 });
  const [client, server] = Object.values(new WebSocketPair());
  server.accept();
  server.addEventListener('message', (event) => server.send('echo:' + event.data));
  return new Response(null, { status: 101, webSocket: client });
} };`,
    }),
  );

describe('RuntimeEngine before start', () => {
  it('refuses deploys', async () => {
    const engine = new RuntimeEngine({ artifacts, dataDir: join(tmpdir(), 'never-used'), baseDomain: 'apps.test' });
    await expect(engine.deploy({ project: 'demo', appId: 'hello', buildId: 'v1', env: {}, hostnames: [] })).rejects.toThrow('not running');
  });
});

describe('RuntimeEngine with workerd', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-'));
  const engine = new RuntimeEngine({
    artifacts,
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    restartBackoff: { initialMs: 100, maxMs: 1000 },
    drainTimeoutMs: 10_000,
    queue: { depthFactor: 0 },
    shards: 2,
    webSocketsPerProject: 4,
    // The projects `mine-*` are one user's (the WebSocket bound is the account's); every other project its own.
    accountOf: (project) => (project.startsWith('mine-') ? 'user:mine' : project),
  });
  let port = 0;
  /** The shard serving project `demo` (the other one serves `burst`'s apps or nothing). */
  const demoShard = () => engine.status().shards[engine.shardOf('demo')]!;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves two apps by Host, each with its environment; unknown hosts get a 404 problem', async () => {
    const hello = await engine.deploy({ project: 'demo', appId: 'hello', buildId: 'v1', env: { GREETING: 'hi "there"\nfriend' }, hostnames: ['www.hello.example'] });
    const other = await engine.deploy({ project: 'demo', appId: 'other', buildId: 'other', env: { GREETING: 'yo' }, hostnames: [] });
    expect(hello).toEqual({
      project: 'demo',
      appId: 'hello',
      buildId: 'v1',
      hosts: ['hello.demo.apps.test', 'www.hello.example'],
      url: 'http://hello.demo.apps.test',
      maxConcurrentRequests: 100,
    });
    expect(other.hosts).toEqual(['other.demo.apps.test']);

    const a = await send(port, 'hello.demo.apps.test:8080', '/path?q=1');
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ version: 'v1', greeting: 'hi "there"\nfriend', url: 'http://hello.demo.apps.test:8080/path?q=1', xff: '127.0.0.1', cf: {} });
    // request.cf is the entry point's, whatever the client sends: not the runtime process's pid and uid (found in
    // review), nor a client's claim to be the runtime's control channel.
    const claimed = await send(port, 'hello.demo.apps.test', '/', { headers: { 'cw-entry-cf': '{"cloudwrightControl":true}', 'x-cloudwright-cf': '{"cloudwrightControl":true}' } });
    expect(JSON.parse(claimed.body)).toMatchObject({ version: 'v1', cf: {} });
    // Even straight on a workerd's entry socket, past the entry point, the old control marker is an app's request.
    const shardDir = readdirSync(runDirOf(dataDir)).find((name) => existsSync(join(runDirOf(dataDir), name, 'entry.sock')))!;
    const direct = await new Promise<string>((resolve, reject) => {
      const socket = connect(join(runDirOf(dataDir), shardDir, 'entry.sock'));
      let text = '';
      socket
        .on('data', (chunk) => (text += String(chunk)))
        .on('end', () => resolve(text))
        .on('error', reject);
      socket.write('GET /stats HTTP/1.1\r\nHost: hello.demo.apps.test\r\ncw-entry-cf: {"cloudwrightControl":true}\r\nConnection: close\r\n\r\n');
    });
    expect(direct).not.toContain('bucketsMs');
    expect(JSON.parse((await send(port, 'WWW.Hello.Example')).body)).toMatchObject({ version: 'v1' });
    expect(JSON.parse((await send(port, 'other.demo.apps.test')).body)).toMatchObject({ version: 'other', greeting: 'yo' });

    const missing = await send(port, 'nope.apps.test');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(missing.body)).toEqual({ title: 'Not Found', status: 404, detail: 'No app is served at host "nope.apps.test".' });
  });

  it('loads JSON modules as their text says, the value built in workerd, not in this process (review-165 F2)', async () => {
    await engine.deploy({ project: 'demo', appId: 'tables', buildId: 'json-modules', env: {}, hostnames: [] });
    const answer = await send(port, 'tables.demo.apps.test');
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ table: [{ a: 1 }, { b: [true, null, 2500] }], odd: { dollar: '$& $1 $$', nul: '\u0000cw-json-0123456789abcdef:0', quote: '"' } });
    await engine.remove('demo', 'tables');
  });

  it('coalesces concurrent deploys into few workerd restarts', async () => {
    const { workerdStarts } = engine.status();
    const served = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((appId) => engine.deploy({ project: 'burst', appId, buildId: 'v1', env: { GREETING: appId }, hostnames: [] })));
    expect(served.map((s) => s.appId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(engine.status().workerdStarts - workerdStarts).toBeLessThanOrEqual(2);
    expect(JSON.parse((await send(port, 'c4.burst.apps.test')).body)).toMatchObject({ greeting: 'c4' });
    await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((appId) => engine.remove('burst', appId)));
  });

  it('streams request bodies to the app and forwards method and status', async () => {
    const body = 'x'.repeat(200_000);
    const res = await send(port, 'hello.demo.apps.test', '/echo', { method: 'PUT', body, headers: { 'transfer-encoding': 'chunked' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-method']).toBe('PUT');
    expect(res.body).toBe(body);
  });

  it('rolls out v2 in the running workerd while a slow v1 request is in flight: it completes with v1, later requests get v2', async () => {
    const before = engine.status();
    const beforeShard = demoShard();
    const slow = slowRequest(port, 'hello.demo.apps.test');
    await slow.inFlight;
    const served = await engine.deploy({ project: 'demo', appId: 'hello', buildId: 'v2', env: { GREETING: 'hi' }, hostnames: ['www.hello.example'] });
    expect(served.buildId).toBe('v2');
    expect(JSON.parse((await send(port, 'hello.demo.apps.test')).body)).toMatchObject({ version: 'v2', greeting: 'hi' });
    const slowResult = await slow.done;
    expect(slowResult.status).toBe(200);
    expect(JSON.parse(slowResult.body)).toMatchObject({ version: 'v1' });
    // Code and environment load a new isolate beside the old one: the same workerd serves (the checker
    // workerd loaded v2 first).
    expect(demoShard()).toMatchObject({ generation: beforeShard.generation, pid: beforeShard.pid });
    expect(engine.status().loadChecks).toBe(before.loadChecks + 1);
  });

  it('changes host names and limits without restarting workerd; deploying the same thing again is a no-op', async () => {
    const { pid } = demoShard();
    const served = await engine.deploy({ project: 'demo', appId: 'hello', buildId: 'v2', env: { GREETING: 'hi' }, hostnames: ['hello.example'], maxConcurrentRequests: 50 });
    expect(served.hosts).toEqual(['hello.demo.apps.test', 'hello.example']);
    expect(served.maxConcurrentRequests).toBe(50);
    expect((await send(port, 'www.hello.example')).status).toBe(404);
    expect((await send(port, 'hello.example')).status).toBe(200);
    await engine.deploy({ project: 'demo', appId: 'hello', buildId: 'v2', env: { GREETING: 'hi' }, hostnames: ['hello.example'], maxConcurrentRequests: 50 });
    expect(demoShard().pid).toBe(pid);
  });

  it('answers 503 with Retry-After past maxConcurrentRequests, counting each request until the app answers', async () => {
    await engine.deploy({ project: 'demo', appId: 'other', buildId: 'other', env: {}, hostnames: [], maxConcurrentRequests: 1 });
    const counts = async () => (await engine.requestStats()).get('demo/other');
    const before = await counts();
    const thinking = send(port, 'other.demo.apps.test', '/think');
    await expect.poll(async () => (await counts())?.active).toBe(1);
    const rejected = await send(port, 'other.demo.apps.test');
    expect(rejected.status).toBe(503);
    expect(rejected.headers['retry-after']).toBe('1');
    expect(JSON.parse(rejected.body)).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect((await counts())?.refused).toBe((before?.refused ?? 0) + 1); // the metrics window's refusals
    expect((await send(port, 'hello.demo.apps.test')).status).toBe(200); // other apps are not limited by it
    expect((await thinking).status).toBe(200);
    // A streamed body is not counted once the app has answered: the slot is free for the next request.
    const slow = slowRequest(port, 'other.demo.apps.test');
    await slow.inFlight;
    expect((await send(port, 'other.demo.apps.test')).status).toBe(200);
    expect((await slow.done).status).toBe(200);
    // The dispatcher counted all four, the refusal among the 5xx, and holds no slot any more.
    const after = await counts();
    expect(after?.count).toBe((before?.count ?? 0) + 4);
    expect(after?.classes[4]).toBe((before?.classes[4] ?? 0) + 1);
    expect(after?.active).toBe(0);
  });

  it('frees the slot of a request whose client went away while the app was handling it', async () => {
    await engine.deploy({ project: 'demo', appId: 'other', buildId: 'other', env: {}, hostnames: [], maxConcurrentRequests: 1 });
    const counts = async () => (await engine.requestStats()).get('demo/other');
    const { request } = await import('node:http');
    const req = request({ host: '127.0.0.1', port, path: '/think?ms=600', headers: { host: 'other.demo.apps.test' }, agent: false });
    req.on('error', () => {});
    req.end();
    await expect.poll(async () => (await counts())?.active).toBe(1);
    req.destroy();
    await expect.poll(async () => (await counts())?.active, { timeout: 5000 }).toBe(0);
    expect((await send(port, 'other.demo.apps.test')).status).toBe(200);
  });

  it.each([
    ['a syntax error', 'broken', /SyntaxError/],
    ['a throw at module top level', 'throws', /no database configured/],
    ['an unknown compatibility flag', 'bad-flag', /no_such_flag_exists/],
  ])('refuses a build with %s and keeps serving the previous one', async (_name, buildId, detail) => {
    const error = await engine.deploy({ project: 'demo', appId: 'hello', buildId, env: {}, hostnames: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildLoadError);
    expect((error as BuildLoadError).detail).toMatch(detail);
    expect((error as BuildLoadError).detail).not.toContain('worker:demo/hello');
    expect((error as BuildLoadError).detail).not.toMatch(/cw-[0-9a-f]{24}\//); // the build's module names, as its author knows them
    expect(engine.served('demo', 'hello')?.buildId).toBe('v2');
    expect(JSON.parse((await send(port, 'hello.demo.apps.test')).body)).toMatchObject({ version: 'v2' });
    expect((await send(port, 'other.demo.apps.test')).status).toBe(200);
    // Its files are not kept beside the build served (an artifact may unpack to 256 MiB, which no bound counts):
    // deleted by the pass that refused it, right after it answered.
    await expect.poll(() => existsSync(join(dataDir, 'builds', `demo.hello.${buildId}`))).toBe(false);
    expect(existsSync(join(dataDir, 'builds', 'demo.hello.v2'))).toBe(true);
    // The refusal is remembered: asking again answers at once, and other deploys do not retry the build.
    const { loadChecks } = engine.status();
    await expect(engine.deploy({ project: 'demo', appId: 'hello', buildId, env: {}, hostnames: [] })).rejects.toBeInstanceOf(BuildLoadError);
    expect(engine.status().loadChecks).toBe(loadChecks);
    await engine.deploy({ project: 'demo', appId: 'other', buildId: 'other', env: { N: buildId }, hostnames: [], maxConcurrentRequests: 1 });
    expect(JSON.parse((await send(port, 'other.demo.apps.test')).body)).toMatchObject({ version: 'other' });
    expect(engine.status().loadChecks).toBe(loadChecks + 1); // its own only
    await expect.poll(() => existsSync(join(dataDir, 'builds', `demo.hello.${buildId}`))).toBe(false);
  });

  it('refuses an invalid artifact and a new app whose build cannot load is not served', async () => {
    await expect(engine.deploy({ project: 'demo', appId: 'junk', buildId: 'not-an-artifact', env: {}, hostnames: [] })).rejects.toBeInstanceOf(ArtifactError);
    await expect(engine.deploy({ project: 'demo', appId: 'fresh', buildId: 'broken', env: {}, hostnames: [] })).rejects.toBeInstanceOf(BuildLoadError);
    expect(engine.served('demo', 'fresh')).toBeUndefined();
    // Routed all the same (its names follow its RuntimeApp), with nothing to answer: a 503 saying why, not a 404.
    const fresh = await send(port, 'fresh.demo.apps.test');
    expect(fresh.status).toBe(503);
    expect(JSON.parse(fresh.body)).toMatchObject({ reason: 'BuildFailed' });
  });

  it('routes the names an app asks for whatever becomes of its deploy: a build that cannot load, or no deployment made', async () => {
    await expect(engine.deploy({ project: 'demo', appId: 'hello', buildId: 'broken', env: {}, hostnames: ['new.hello.example'] })).rejects.toBeInstanceOf(BuildLoadError);
    // The build before it answers on the names the app asks for now, as the operator says them.
    expect(JSON.parse((await send(port, 'new.hello.example')).body)).toMatchObject({ version: 'v2' });
    expect(engine.served('demo', 'hello')?.hosts).toEqual(['hello.demo.apps.test', 'new.hello.example']);
    // No deployment could be made of what it asks for (its database variables do not resolve): routed on its names.
    await engine.route('demo', 'hello', ['other.hello.example']);
    expect(JSON.parse((await send(port, 'other.hello.example')).body)).toMatchObject({ version: 'v2' });
    expect((await send(port, 'new.hello.example')).status).toBe(404);
    // Nothing of it served ever: routed, answered 503 until it is served, and gone once removed.
    await engine.route('demo', 'unmade', []);
    const unmade = await send(port, 'unmade.demo.apps.test');
    expect(unmade.status).toBe(503);
    expect(JSON.parse(unmade.body)).toMatchObject({ reason: 'AppNotServed' });
    await engine.route('demo', 'unmade', [], 'DatabaseNotFound');
    expect(JSON.parse((await send(port, 'unmade.demo.apps.test')).body)).toMatchObject({ reason: 'DatabaseNotFound' });
    await engine.remove('demo', 'unmade');
    expect((await send(port, 'unmade.demo.apps.test')).status).toBe(404);
    await expect(engine.route('demo', 'Not_A_Label', [])).rejects.toThrow('DNS labels');
  });

  it('serves a Next-style build: static assets first, the rest by the worker with process.env and env.ASSETS', async () => {
    await engine.deploy({ project: 'demo', appId: 'site', buildId: 'next-like', env: { GREETING: 'from env' }, hostnames: [] });
    const asset = await send(port, 'site.demo.apps.test', '/_next/static/chunk.js');
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log("chunk")');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers.etag).toBeDefined();
    expect((await send(port, 'site.demo.apps.test', '/blog/post')).body).toBe('ssr /blog/post from env');
    expect((await send(port, 'site.demo.apps.test', '/favicon-via-binding')).body).toBe('icon');
  });

  it('starts a new workerd when static assets change (blue/green): a request in flight finishes on the old one, which then exits', async () => {
    const before = demoShard();
    const slow = slowRequest(port, 'hello.demo.apps.test');
    await slow.inFlight;
    // A new app with assets: workerd fixes assets services at start, so this needs a new generation.
    await engine.deploy({ project: 'demo', appId: 'more-assets', buildId: 'next-like', env: { GREETING: 'again' }, hostnames: [] });
    const after = demoShard();
    expect(after.generation).toBeGreaterThan(before.generation);
    expect(after.pid).not.toBe(before.pid);
    expect((await send(port, 'more-assets.demo.apps.test', '/_next/static/chunk.js')).body).toBe('console.log("chunk")');
    expect(processAlive(before.pid)).toBe(true); // still answering the slow request
    const done = await slow.done;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toMatchObject({ version: engine.served('demo', 'hello')?.buildId });
    await expect.poll(() => processAlive(before.pid), { timeout: 5000 }).toBe(false);
    await engine.remove('demo', 'more-assets');
  });

  it('keeps one workerd finishing its requests per shard: a third generation stops the oldest, once it had 5 s (found in review: 61 kept, 3.5 GB)', async () => {
    const first = demoShard();
    const held = send(port, 'hello.demo.apps.test', '/think?ms=20000').catch((err: unknown) => err);
    const short = send(port, 'hello.demo.apps.test', '/think?ms=3000');
    await expect.poll(async () => (await engine.requestStats()).get('demo/hello')?.active ?? 0).toBe(2);
    await engine.deploy({ project: 'demo', appId: 'drain-a', buildId: 'next-like', env: { GREETING: 'a' }, hostnames: [] });
    const second = demoShard();
    expect(second.pid).not.toBe(first.pid);
    expect(processAlive(first.pid)).toBe(true); // finishing the held request
    const heldAgain = send(port, 'hello.demo.apps.test', '/think?ms=9000');
    const draining = Date.now();
    await engine.deploy({ project: 'demo', appId: 'drain-b', buildId: 'next-like', env: { GREETING: 'b' }, hostnames: [] });
    // The change waited for the first's 5 s (a request shorter than that finished there), then stopped it, cutting
    // the longer one; the second finishes its own.
    expect(Date.now() - draining).toBeGreaterThan(4000);
    expect((await short).status).toBe(200);
    await expect.poll(() => processAlive(first.pid), { timeout: 5000 }).toBe(false);
    expect(processAlive(second.pid)).toBe(true);
    const cut = await held;
    expect(cut instanceof Error || (cut as { status: number }).status >= 500).toBe(true);
    expect((await heldAgain).status).toBe(200);
    await engine.remove('demo', 'drain-a');
    await engine.remove('demo', 'drain-b');
  });

  it.each([
    ['/api/x', 200, 'worker /api/x', {}],
    ['/api/docs/y', 200, 'static docs', {}],
    ['/page', 200, 'page', { 'x-from-headers': 'yes' }],
    ['/old', 301, '', { location: '/page' }],
    ['/_headers', 200, 'worker /_headers', {}],
  ])('asset serving honours run_worker_first, _headers and _redirects: %s', async (path, status, body, headers) => {
    await engine.deploy({ project: 'demo', appId: 'assets', buildId: 'assets-config', env: {}, hostnames: [] });
    const res = await send(port, 'assets.demo.apps.test', path);
    expect(res).toMatchObject({ status, body });
    expect(res.headers).toMatchObject(headers);
  });

  it('relays WebSockets', async () => {
    // The WebSocket client cannot set Host, so the app claims the address it connects to.
    await engine.deploy({ project: 'demo', appId: 'ws', buildId: 'websocket', env: {}, hostnames: ['127.0.0.1'] });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    const reply = await new Promise<string>((resolve, reject) => {
      ws.addEventListener('open', () => ws.send('ping'));
      ws.addEventListener('message', (event) => resolve(String(event.data)));
      ws.addEventListener('error', () => reject(new Error('websocket error')));
    });
    ws.close();
    expect(reply).toBe('echo:ping');
  });

  it("refuses a project's WebSocket past its bound on the replica, and one client's past half of it, and takes one again once one closes (found in review: 2,434 stopped a shard, nobody blamed)", async () => {
    // A project of its own (the test before leaves one of demo's closing), on the other address the client can name.
    await engine.deploy({ project: 'sockets', appId: 'ws', buildId: 'websocket', env: {}, hostnames: ['localhost'] });
    const opened = (answer: string) => answer.split('\r\n')[0] === 'HTTP/1.1 101 Switching Protocols';
    const held = [await handshake(port), await handshake(port)];
    expect(held.every((h) => opened(h.answer))).toBe(true);
    // One client holds at most half of the bound, so that it cannot keep the others out (found in review).
    const greedy = await handshake(port);
    expect(greedy.answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(greedy.answer).toContain('This client holds 2 of');
    const others = [await handshake(port, '127.0.0.2'), await handshake(port, '127.0.0.3')];
    expect(others.every((h) => opened(h.answer))).toBe(true);
    const refused = await handshake(port, '127.0.0.4');
    expect(refused.answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.answer).toContain('hold 4 WebSockets open on this replica');
    // Nobody was closed to make room, and a connection that goes away gives its place back.
    expect([...held, ...others].some((h) => h.socket.destroyed)).toBe(false);
    others[0]!.socket.destroy();
    await expect
      .poll(
        async () => {
          const again = await handshake(port, '127.0.0.4');
          again.socket.destroy();
          return opened(again.answer);
        },
        { timeout: 5000 },
      )
      .toBe(true);
    for (const h of [...held, ...others]) h.socket.destroy();
    await engine.remove('sockets', 'ws');
  });

  it("holds one account's projects to the WebSocket bound together, while another account's project opens its own (found in review: one user's ten projects held ten times it on one shard)", async () => {
    for (const project of ['mine-a', 'mine-b', 'theirs']) await engine.deploy({ project, appId: 'ws', buildId: 'websocket', env: {}, hostnames: [] });
    const opened = (answer: string) => answer.split('\r\n')[0] === 'HTTP/1.1 101 Switching Protocols';
    const host = (project: string) => `ws.${project}.apps.test`;
    // Two clients, each with one WebSocket to each of the account's projects: the account's 4 (and each client's 2).
    const held = [];
    for (const from of ['127.0.0.1', '127.0.0.2']) for (const project of ['mine-a', 'mine-b']) held.push(await handshake(port, from, host(project)));
    expect(held.every((h) => opened(h.answer))).toBe(true);
    // Counted per project, mine-b (2 open) would take a third client's.
    const past = await handshake(port, '127.0.0.3', host('mine-b'));
    expect(past.answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(past.answer).toContain("The projects of the app's owner hold 4 WebSockets open on this replica");
    // A client holds at most half of the account's bound, across its projects.
    for (const h of held.splice(2, 2)) h.socket.destroy(); // 127.0.0.2's
    await expect
      .poll(
        async () => {
          const again = await handshake(port, '127.0.0.1', host('mine-b'));
          again.socket.destroy();
          return again.answer;
        },
        { timeout: 5000 },
      )
      .toContain('This client holds 2 of');
    // Another account's project opens its own, from the client the account was refused.
    const theirs = await handshake(port, '127.0.0.3', host('theirs'));
    expect(opened(theirs.answer)).toBe(true);
    for (const h of [...held, theirs, past]) h.socket.destroy();
    for (const project of ['mine-a', 'mine-b', 'theirs']) await engine.remove(project, 'ws');
  });

  it("restarts a shard's workerd after kill -9 and serves again within seconds; the other shard is untouched", async () => {
    // A project the other shard serves.
    const side = ['side', 'aside', 'elsewhere', 'yonder', 'beyond'].find((p) => engine.shardOf(p) !== engine.shardOf('demo'))!;
    await engine.deploy({ project: side, appId: 'calm', buildId: 'other', env: {}, hostnames: [] });
    const otherShard = engine.status().shards[engine.shardOf(side)]!;
    const { pid, restarts } = demoShard();
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    expect((await send(port, `calm.${side}.apps.test`)).status).toBe(200);
    const during = await send(port, 'hello.demo.apps.test');
    if (during.status !== 200) {
      expect(during.status).toBe(503);
      expect(during.headers['retry-after']).toBe('1');
    }
    await expect.poll(async () => (await send(port, 'hello.demo.apps.test')).status, { timeout: 5000, interval: 50 }).toBe(200);
    const recoveredInMs = Date.now() - killedAt;
    expect(recoveredInMs).toBeLessThan(5000);
    expect(engine.status()).toMatchObject({ ready: true, restarts: restarts + 1 });
    expect(demoShard().pid).not.toBe(pid);
    expect(JSON.parse((await send(port, 'other.demo.apps.test')).body)).toMatchObject({ version: 'other' });
    expect(engine.status().shards[engine.shardOf(side)]).toMatchObject({ pid: otherShard.pid, restarts: otherShard.restarts });
    await engine.remove(side, 'calm');
  });

  it('removes an app: its hosts answer 404', async () => {
    await engine.remove('demo', 'other');
    await engine.remove('demo', 'other'); // idempotent
    expect((await send(port, 'other.demo.apps.test')).status).toBe(404);
    expect(engine.list().map((a) => a.appId)).toEqual(['assets', 'hello', 'site', 'ws']);
    // Its request counts go with it (a workerd it was served by has retired since): its series leave `/metrics`.
    const counts = await engine.requestStats();
    expect(counts.has('demo/other')).toBe(false);
    expect(counts.get('demo/hello')?.count).toBeGreaterThan(0);
  });
});

describe('RuntimeEngine when workerd cannot start for reasons of its own', { timeout: 60_000 }, () => {
  it('fails the deploy as retryable, not as a build that cannot load, and serves the build once workerd starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-hang-'));
    // A workerd that hangs without listening while the flag file exists, as on a machine too busy to start it.
    const flag = join(dir, 'hang');
    const wrapper = join(dir, 'workerd');
    writeFileSync(wrapper, `#!/bin/sh\nif [ -e '${flag}' ] && [ "$1" = serve ]; then exec sleep 60; fi\nexec '${resolveWorkerdBinary()}' "$@"\n`, { mode: 0o755 });
    const engine = new RuntimeEngine({
      artifacts,
      dataDir: join(dir, 'data'),
      baseDomain: 'apps.test',
      workerdBinary: wrapper,
      startTimeoutMs: 1000,
      restartBackoff: { initialMs: 100, maxMs: 500 },
    });
    await engine.start();
    try {
      writeFileSync(flag, '');
      const app = { project: 'demo', appId: 'hello', buildId: 'v1', env: {}, hostnames: [] };
      const failed = await engine.deploy(app).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(Error);
      expect(failed).not.toBeInstanceOf(BuildLoadError);
      expect((failed as Error).message).toContain('did not listen within 1000 ms');
      rmSync(flag);
      await engine.deploy(app); // the same build, not refused from memory
      const { port } = engine.address;
      expect(JSON.parse((await send(port, 'hello.demo.apps.test')).body)).toMatchObject({ version: 'v1' });
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a build that loops at its top level once it used a start’s CPU allowance, not after the wall-clock bound (found by a hostile run)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-loop-'));
    // The default 30 s bound on a load; the CPU allowance of a start is 0.5 + 1 s.
    const engine = new RuntimeEngine({ artifacts, dataDir: join(dir, 'data'), baseDomain: 'apps.test' });
    await engine.start();
    try {
      const started = performance.now();
      const refused = await engine.deploy({ project: 'demo', appId: 'stuck', buildId: 'never-loads', env: {}, hostnames: [] }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(BuildLoadError);
      expect((refused as Error).message).toMatch(/computed for more than 1500 ms of CPU time without finishing loading/);
      // Every project's deploys wait for the check under way: seconds, not the 30 s bound.
      expect(performance.now() - started).toBeLessThan(15_000);
      await engine.deploy({ project: 'demo', appId: 'fine', buildId: 'v2', env: {}, hostnames: [] });
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a build that never finishes loading (workerd itself starts fine), and serves the other apps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-loop-'));
    const engine = new RuntimeEngine({ artifacts, dataDir: join(dir, 'data'), baseDomain: 'apps.test', startTimeoutMs: 1500 });
    await engine.start();
    try {
      // Both arrive while a pass is under way, so the next pass checks them together: the loop must not take
      // the good build down with it.
      const first = engine.deploy({ project: 'demo', appId: 'first', buildId: 'v1', env: {}, hostnames: [] });
      const stuck = engine.deploy({ project: 'demo', appId: 'stuck', buildId: 'never-loads', env: {}, hostnames: [] });
      const fine = engine.deploy({ project: 'demo', appId: 'fine', buildId: 'v2', env: {}, hostnames: [] });
      await first;
      const refused = await stuck.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(BuildLoadError);
      expect((refused as Error).message).toMatch(/did not load within \d+ ms|computed for more than \d+ ms of CPU time/);
      await fine;
      const { port } = engine.address;
      expect(JSON.parse((await send(port, 'fine.demo.apps.test')).body)).toMatchObject({ version: 'v2' });
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('RuntimeEngine past its maximum of loaded isolates', { timeout: 60_000 }, () => {
  it('starts a fresh workerd, loads apps again on demand, and keeps the request counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-'));
    const engine = new RuntimeEngine({ artifacts, dataDir: dir, baseDomain: 'apps.test', publicScheme: 'http', maxLoadedWorkers: 2, limits: { intervalMs: 100 } });
    try {
      await engine.start();
      const { port } = engine.address;
      const apps = ['one', 'two', 'three'];
      for (const appId of apps) await engine.deploy({ project: 'demo', appId, buildId: 'v1', env: { GREETING: appId }, hostnames: [] });
      const { generation } = engine.status().shards[0]!;
      for (const appId of apps) expect(JSON.parse((await send(port, `${appId}.demo.apps.test`)).body)).toMatchObject({ greeting: appId });
      // The third isolate passes the bound: the next health check replaces workerd, blue/green.
      await expect.poll(() => engine.status().shards[0]!.generation, { timeout: 10_000 }).toBeGreaterThan(generation);
      await expect.poll(() => engine.status().loadedWorkers, { timeout: 5000 }).toBeLessThanOrEqual(2);
      for (const appId of apps) expect(JSON.parse((await send(port, `${appId}.demo.apps.test`)).body)).toMatchObject({ greeting: appId });
      // The old workerd's counts stay in the totals once it is gone.
      await expect.poll(async () => (await engine.requestStats()).get('demo/one')?.count, { timeout: 10_000 }).toBe(2);
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('RuntimeEngine queueing past maxConcurrentRequests', { timeout: 60_000 }, () => {
  it('lets a queued request in as soon as the limit is raised, and refuses past the queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-rt-'));
    const engine = new RuntimeEngine({ artifacts, dataDir: dir, baseDomain: 'apps.test', publicScheme: 'http' });
    try {
      await engine.start();
      const { port } = engine.address;
      const app = { project: 'demo', appId: 'q', buildId: 'v1', env: {}, hostnames: [] };
      await engine.deploy({ ...app, maxConcurrentRequests: 1 });
      const counts = async () => (await engine.requestStats()).get('demo/q');
      let firstDone = false;
      const first = send(port, 'q.demo.apps.test', '/think?ms=3000').then((res) => ((firstDone = true), res));
      await expect.poll(async () => (await counts())?.active).toBe(1);
      const queued = send(port, 'q.demo.apps.test', '/think?ms=10');
      await expect.poll(async () => (await counts())?.queued).toBe(1);
      expect((await send(port, 'q.demo.apps.test')).status).toBe(503); // the queue holds one
      await engine.deploy({ ...app, maxConcurrentRequests: 2 });
      expect((await queued).status).toBe(200);
      expect(firstDone).toBe(false); // let in by the raised limit, not by the first one finishing
      expect((await first).status).toBe(200);
      expect(await counts()).toMatchObject({ active: 0, queued: 0 });
    } finally {
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
