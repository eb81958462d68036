// Apps served on demand, against the real workerd: an app deployed is routed but not prepared; its first request
// fetches, checks and loads it (concurrent first requests share that), and a small bound lets the least recently
// used go, from the shard and from disk.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import type { OnDemandOptions } from './on-demand.ts';
import type { ArtifactSource, BuildRef } from './ports.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const hello = (name: string) => artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(`hello from ${name}`)}); } };` });
/** Unpacks to about 64 KiB: three of them do not fit a 160 KiB cache. */
const sized = (name: string) => artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response(${JSON.stringify(name)}); } };`, 'padding.txt': 'x'.repeat(64 * 1024) });

let engine: RuntimeEngine | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await engine?.stop(0);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  engine = undefined;
});

async function start(artifacts: MemoryArtifactSource, onDemand: OnDemandOptions, unrouted?: (host: string) => Promise<boolean> | undefined): Promise<RuntimeEngine> {
  dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
  engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand, ...(unrouted ? { unrouted } : {}) });
  await engine.start();
  return engine;
}

/** Artifacts whose fetches of a build can be held, naming the builds fetched in order. */
class HeldArtifacts extends MemoryArtifactSource {
  readonly fetchedBuilds: string[] = [];
  readonly #held = new Map<string, Promise<void>>();
  readonly #asked = new Events();

  /** Holds the fetches of `buildId` until the function returned is called. */
  hold(buildId: string): () => void {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#held.set(buildId, promise);
    return resolve;
  }

  /** Resolves once `buildId` is fetched. */
  asked(buildId: string): Promise<void> {
    return this.#asked.next(buildId);
  }

  override async fetch(ref: BuildRef): Promise<Iterable<Uint8Array>> {
    this.fetchedBuilds.push(ref.buildId);
    this.#asked.emit(ref.buildId);
    await this.#held.get(ref.buildId);
    return super.fetch(ref);
  }
}

/** Artifacts whose fetches of some builds fail as a bucket that does not answer would. */
class DownArtifacts extends MemoryArtifactSource {
  readonly down = new Set<string>();
  /** Every fetch asked for, in order. */
  readonly tried: string[] = [];

  override async fetch(ref: BuildRef): Promise<Iterable<Uint8Array>> {
    this.tried.push(ref.buildId);
    if (this.down.has(ref.buildId)) throw new Error(`the bucket did not answer for ${ref.buildId}`);
    return super.fetch(ref);
  }
}

/** Named events a test waits for, each once: one emitted before it is waited for is not missed. */
class Events {
  readonly #of = new Map<string, PromiseWithResolvers<void>>();

  emit(name: string): void {
    this.#entry(name).resolve();
  }

  next(name: string): Promise<void> {
    return this.#entry(name).promise;
  }

  #entry(name: string): PromiseWithResolvers<void> {
    let entry = this.#of.get(name);
    if (!entry) this.#of.set(name, (entry = Promise.withResolvers<void>()));
    return entry;
  }
}

const deploy = (e: RuntimeEngine, appId: string, buildId = appId) => e.deploy({ project: 'p', appId, buildId, env: {}, hostnames: [] });
const builtOnDisk = (appId: string, buildId = appId) => existsSync(join(dataDir!, 'builds', `p.${appId}.${buildId}`));

describe('RuntimeEngine serving on demand', () => {
  it('routes a deployed app without preparing it, prepares it once for concurrent first requests, then serves it as before', async () => {
    const artifacts = new MemoryArtifactSource().put('a', hello('a'));
    const e = await start(artifacts, {});
    const served = await deploy(e, 'a');
    expect(served).toMatchObject({ buildId: 'a', hosts: ['a.p.od.test'], onDemand: true });
    expect(artifacts.fetches).toBe(0);
    expect(builtOnDisk('a')).toBe(false);

    const first = await Promise.all(Array.from({ length: 5 }, () => send(e.address.port, 'a.p.od.test', '/')));
    expect(first.map((r) => [r.status, r.body])).toEqual(Array.from({ length: 5 }, () => [200, 'hello from a']));
    expect(artifacts.fetches).toBe(1);
    expect(builtOnDisk('a')).toBe(true);
    expect(e.served('p', 'a')?.onDemand).toBeUndefined();

    expect(await send(e.address.port, 'a.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from a' });
    expect(artifacts.fetches).toBe(1);
    expect(await send(e.address.port, 'nothing.p.od.test', '/')).toMatchObject({ status: 404 });
  });

  it('a request for a host its owner is still deploying waits for that deploy, once, and is answered by the app', async () => {
    const artifacts = new MemoryArtifactSource().put('late', hello('late'));
    const asked: string[] = [];
    const e = await start(artifacts, {}, (host) => {
      asked.push(host);
      // The owner knows of an app at late.p.od.test that it has not deployed yet: it does so now.
      return host === 'late.p.od.test' ? deploy(engine!, 'late').then(() => true) : undefined;
    });
    expect(await send(e.address.port, 'LATE.p.od.test:8080', '/')).toMatchObject({ status: 200, body: 'hello from late' });
    expect(await send(e.address.port, 'late.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from late' });
    expect(await send(e.address.port, 'unknown.p.od.test', '/')).toMatchObject({ status: 404 });
    expect(asked).toEqual(['late.p.od.test', 'unknown.p.od.test']); // routed once deployed: not asked again
  });

  it('answers 503 to retry when the owner took too long, and 404 when the deploy did not give the host an app', async () => {
    const e = await start(new MemoryArtifactSource(), {}, (host) => Promise.resolve(host === 'slow.p.od.test' ? false : true));
    const slow = await send(e.address.port, 'slow.p.od.test', '/');
    expect(slow).toMatchObject({ status: 503 });
    expect(slow.headers['retry-after']).toBeDefined();
    expect(JSON.parse(slow.body)).toMatchObject({ reason: 'AppPreparing' });
    expect(await send(e.address.port, 'refused.p.od.test', '/')).toMatchObject({ status: 404 });
  });

  it('routes the host names an app not prepared asks for now, not those it asked for before', async () => {
    const artifacts = new MemoryArtifactSource().put('a', hello('a'));
    const e = await start(artifacts, {});
    await e.deploy({ project: 'p', appId: 'a', buildId: 'a', env: {}, hostnames: ['old.example'] });
    expect((await e.deploy({ project: 'p', appId: 'a', buildId: 'a', env: {}, hostnames: ['new.example'] })).hosts).toEqual(['a.p.od.test', 'new.example']);
    expect(await send(e.address.port, 'old.example', '/')).toMatchObject({ status: 404 });
    expect(await send(e.address.port, 'new.example', '/')).toMatchObject({ status: 200, body: 'hello from a' });
    // Each project's apps, prepared or not, without the others' (what the replica's report of a project is built from).
    await e.deploy({ project: 'q', appId: 'b', buildId: 'a', env: {}, hostnames: [] });
    expect([e.keysIn('p'), e.keysIn('q')]).toEqual([['p/a'], ['q/b']]);
    await e.remove('p', 'a');
    expect(e.keysIn('p')).toEqual([]);
  });

  it('lets the least recently used app go past the bound on prepared apps, and prepares it again on its next request', async () => {
    const artifacts = new MemoryArtifactSource().put('a', hello('a')).put('b', hello('b')).put('c', hello('c'));
    const e = await start(artifacts, { maxApps: 2 });
    for (const app of ['a', 'b', 'c']) await deploy(e, app);
    for (const app of ['a', 'b']) expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: `hello from ${app}` });
    expect(await send(e.address.port, 'a.p.od.test', '/')).toMatchObject({ status: 200 }); // b is now the least recently used
    expect(await send(e.address.port, 'c.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from c' });

    await expect.poll(() => e.served('p', 'b')?.onDemand, { timeout: 10_000 }).toBe(true);
    await expect.poll(() => builtOnDisk('b'), { timeout: 10_000 }).toBe(false);
    expect(e.preparedOnDemand).toBe(2);
    expect(e.served('p', 'a')?.onDemand).toBeUndefined();
    expect(builtOnDisk('a') && builtOnDisk('c')).toBe(true);

    expect(await send(e.address.port, 'b.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from b' });
    expect(artifacts.fetches).toBe(4);
  });

  it('keeps serving what an app served before a deploy it cannot prepare, however many apps come after', async () => {
    const broken = artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' });
    const artifacts = new MemoryArtifactSource().put('good', hello('good')).put('broken', broken);
    for (const app of ['x', 'y', 'z']) artifacts.put(app, hello(app));
    const e = await start(artifacts, { maxApps: 4, eagerBuilds: () => true });
    await deploy(e, 'web', 'good');
    await deploy(e, 'api', 'good');
    await expect(deploy(e, 'web', 'lost')).rejects.toThrow(); // its artifact is not stored
    await expect(deploy(e, 'api', 'broken')).rejects.toThrow(/SyntaxError/);
    // The last new app passes the bound of four prepared apps: the least recently used goes, not these two (within
    // half the bound, they go last).
    for (const app of ['x', 'y', 'z']) {
      await deploy(e, app);
      expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: `hello from ${app}` });
    }
    await expect.poll(() => e.served('p', 'x')?.onDemand, { timeout: 10_000 }).toBe(true);
    for (const app of ['web', 'api']) {
      expect(e.served('p', app), JSON.stringify(e.served('p', app))).toMatchObject({ buildId: 'good' });
      expect(e.served('p', app)?.onDemand).toBeUndefined();
      expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: 'hello from good' });
    }
  });

  it('serves the build an app served before when a new one cannot be, also after the app was let go, at deploy or on its first request', async () => {
    const broken = artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' });
    const artifacts = new MemoryArtifactSource().put('good', hello('good')).put('broken', broken).put('fixed', hello('fixed')).put('other', hello('other'));
    let eager = true;
    const e = await start(artifacts, { maxApps: 1, eagerBuilds: () => eager });
    const letGo = async (app: string) => {
      await deploy(e, 'other');
      expect(await send(e.address.port, 'other.p.od.test', '/')).toMatchObject({ status: 200 });
      await expect.poll(() => e.served('p', app)?.onDemand, { timeout: 10_000 }).toBe(true);
    };
    for (const app of ['web', 'api']) {
      await deploy(e, app, 'good');
      expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: 'hello from good' });
    }
    await letGo('api');
    await letGo('web');

    // Prepared at deploy: the deploy fails, and the app serves its previous build again.
    await expect(deploy(e, 'web', 'broken')).rejects.toThrow(/SyntaxError/);
    await expect(deploy(e, 'api', 'lost')).rejects.toThrow(); // its artifact is not stored
    for (const app of ['web', 'api']) {
      expect(e.served('p', app), app).toMatchObject({ buildId: 'good' });
      expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: 'hello from good' });
    }

    // Deployed without preparing it (its replica's first list): its first request finds it broken and serves the one before.
    eager = false;
    await deploy(e, 'web', 'fixed');
    await letGo('web');
    // Tried in the background (given a fallback): the deploy may or may not find it broken.
    await deploy(e, 'web', 'broken').catch(() => undefined);
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from fixed' });
    expect(String(e.preparationFailure('p', 'web')?.error)).toMatch(/SyntaxError/);
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'fixed' });

    // Serving their fallbacks, they go last past the bound, but go; their next request falls back again.
    for (const [app, body] of [
      ['web', 'hello from fixed'],
      ['api', 'hello from good'],
    ] as const) {
      await letGo(app);
      expect(e.served('p', app)).toMatchObject({ buildId: app === 'web' ? 'fixed' : 'good', onDemand: true });
      expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body });
    }
  });

  it('on a replica that never served the app, tries a new build given a fallback in the background once no first request waits, and serves the fallback when it cannot be', async () => {
    const broken = artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' });
    const artifacts = new HeldArtifacts().put('good', hello('good')).put('broken', broken).put('next', hello('next')).put('busy', hello('busy'));
    const prepared = new Events();
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => false }, onPrepared: (key) => prepared.emit(key) }));
    await e.start();
    const recorded = (appId: string) => ({ project: 'p', appId, buildId: 'good', env: {}, hostnames: [] });
    // A first request's build is slow to come: deploys complete meanwhile (its fetch holds no pass), the background
    // check waits for it, and the app is reported untried beside its fallback, not served.
    await deploy(e, 'busy');
    const release = artifacts.hold('busy');
    const busy = send(e.address.port, 'busy.p.od.test', '/');
    await artifacts.asked('busy');
    expect(await e.deploy({ project: 'p', appId: 'web', buildId: 'broken', env: {}, hostnames: [] }, recorded('web'))).toMatchObject({
      buildId: 'broken',
      onDemand: true,
      untried: { fallbackBuildId: 'good' },
    });
    await e.deploy({ project: 'p', appId: 'api', buildId: 'next', env: {}, hostnames: [] }, recorded('api'));
    expect(artifacts.fetchedBuilds).toEqual(['busy']);
    release();
    expect(await busy).toMatchObject({ status: 200, body: 'hello from busy' });
    // Then, with no request: the build that cannot load is found out, and the app serves its fallback.
    await prepared.next('p/web');
    expect(String(e.preparationFailure('p', 'web')?.error)).toMatch(/SyntaxError/);
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'good' });
    expect(e.served('p', 'web')?.untried).toBeUndefined();
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from good' });
    // One that loads is served, not its fallback.
    await prepared.next('p/api');
    expect(e.served('p', 'api')).toMatchObject({ buildId: 'next' });
    expect(e.served('p', 'api')?.untried).toBeUndefined();
    expect(await send(e.address.port, 'api.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from next' });
    expect(artifacts.fetchedBuilds).toEqual(['busy', 'broken', 'good', 'next']);
  });

  it('on a replica started since, checks a deployment another replica refused before reporting it served, with no fallback (found by a hostile run)', async () => {
    const broken = artifactFromFiles({ 'worker.js': 'throw new Error("boom at top level");\nexport default {};' });
    const artifacts = new HeldArtifacts().put('broken', broken).put('fixed', hello('fixed'));
    const prepared = new Events();
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => false, maxApps: 1 }, onPrepared: (key) => prepared.emit(key) }));
    await e.start();
    // Not reported served (no serving build) until it is tried (its check held at the fetch); then refused, as elsewhere.
    const releaseBroken = artifacts.hold('broken');
    expect((await e.deploy({ project: 'p', appId: 'web', buildId: 'broken', env: {}, hostnames: [] }, undefined, true)).untried).toEqual({});
    releaseBroken();
    await prepared.next('p/web');
    expect(String(e.preparationFailure('p', 'web')?.error)).toMatch(/boom at top level/);
    expect(e.served('p', 'web')?.untried).toBeUndefined();
    // One refused before that loads here is served.
    const releaseFixed = artifacts.hold('fixed');
    expect((await e.deploy({ project: 'p', appId: 'api', buildId: 'fixed', env: {}, hostnames: [] }, undefined, true)).untried).toEqual({});
    releaseFixed();
    await prepared.next('p/api');
    expect(e.served('p', 'api')).toMatchObject({ buildId: 'fixed' });
    expect(e.served('p', 'api')?.untried).toBeUndefined();
    // Tried here once: let go later, it is not untried again (found in review: checked, served and let go in a loop).
    await deploy(e, 'other', 'fixed');
    expect(await send(e.address.port, 'other.p.od.test', '/')).toMatchObject({ status: 200 });
    expect(e.preparedOnDemand).toBe(1);
    expect(e.served('p', 'api')).toMatchObject({ buildId: 'fixed', onDemand: true });
    expect(e.served('p', 'api')?.untried).toBeUndefined();
  });

  it('keeps the recorded fallback when an untried build is deployed over, and checks again a deployment changed after its check (found in review)', async () => {
    const broken = (n: number) => artifactFromFiles({ 'worker.js': `export default { fetch( { return ${n} } };` });
    const artifacts = new HeldArtifacts().put('good', hello('good')).put('broken-1', broken(1)).put('broken-2', broken(2)).put('busy', hello('busy'));
    const prepared = new Events();
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => false }, onPrepared: (key) => prepared.emit(key) }));
    await e.start();
    const web = (buildId: string, env: Record<string, string> = {}) => ({ project: 'p', appId: 'web', buildId, env, hostnames: [] });
    // Checks wait while a first request's build is held.
    await deploy(e, 'busy');
    const release = artifacts.hold('busy');
    const busy = send(e.address.port, 'busy.p.od.test', '/');
    await artifacts.asked('busy');
    await e.deploy(web('broken-1'), web('good'));
    // Deployed over before it was tried: what the replicas served stays the fallback, not the untried build.
    await e.deploy(web('broken-2'));
    expect(e.served('p', 'web')?.untried).toEqual({ fallbackBuildId: 'good' });
    release();
    await busy;
    await prepared.next('p/web');
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'good' });
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from good' });
    // A change of environment after the check is a deployment untried again: tried too, with no request (kept since
    // its check, by the deploy's own pass, which fails it), never left reported untried.
    await expect(e.deploy(web('broken-2', { MODE: 'b' }))).rejects.toThrow(/SyntaxError/);
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'good' });
    expect(e.served('p', 'web')?.untried).toBeUndefined();
  });

  it('tries a background check again when its build could not be had for now, and serves the build once it can be (found in review)', async () => {
    const artifacts = new DownArtifacts().put('good', hello('good')).put('next', hello('next'));
    const prepared = new Events();
    let preparations = 0;
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const onPrepared = (key: string) => prepared.emit(`${key}#${++preparations}`);
    // Tried again a second later: time for the other deploy below to make its pass first.
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => false, checkRetryMs: 1000 }, onPrepared }));
    await e.start();
    const web = (buildId: string) => ({ project: 'p', appId: 'web', buildId, env: {}, hostnames: [] });
    artifacts.down.add('next');
    await e.deploy(web('next'), web('good'));
    // The bucket does not answer for the new build: the check serves the fallback, and the app is not reported served.
    await prepared.next('p/web#1');
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'good' });
    // Asked for once: the check's pass serves the fallback without fetching it again, and so do later passes.
    await e.deploy({ project: 'p', appId: 'other', buildId: 'good', env: {}, hostnames: [] });
    expect(artifacts.tried.filter((b) => b === 'next')).toHaveLength(1);
    artifacts.down.delete('next');
    // With no request and no deploy, a later try finds it.
    await vi.waitFor(() => expect(e.served('p', 'web')).toMatchObject({ buildId: 'next' }), { timeout: 10_000, interval: 20 });
    expect(e.served('p', 'web')?.untried).toBeUndefined();
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from next' });
  });

  it('does not fetch again, in every later pass, a new build its own deploy could not fetch, and serves it once it can (found in review)', async () => {
    const artifacts = new DownArtifacts().put('good', hello('good')).put('next', hello('next'));
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    // Tried again a second later: time for the other deploys below to make their passes first.
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => true, checkRetryMs: 1000 } }));
    await e.start();
    const web = (buildId: string) => ({ project: 'p', appId: 'web', buildId, env: {}, hostnames: [] });
    await e.deploy(web('good'));
    artifacts.down.add('next');
    await expect(e.deploy(web('next'))).rejects.toThrow(/did not answer/);
    await deploy(e, 'other-1', 'good');
    await deploy(e, 'other-2', 'good');
    expect(artifacts.tried.filter((b) => b === 'next')).toHaveLength(1);
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from good' });
    artifacts.down.delete('next');
    await vi.waitFor(() => expect(e.served('p', 'web')).toMatchObject({ buildId: 'next' }), { timeout: 10_000, interval: 20 });
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from next' });
  });

  it('does not let a kept app go in the pass of its own check, its build then taken for a failure (found in review)', async () => {
    const big = artifactFromFiles({ 'worker.js': 'export default { fetch() { return new Response("next"); } };', 'padding.txt': 'x'.repeat(128 * 1024) });
    const artifacts = new DownArtifacts().put('good', hello('good')).put('next', big).put('a', sized('a'));
    const prepared = new Events();
    let preparations = 0;
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const onPrepared = (key: string) => prepared.emit(`${key}#${++preparations}`);
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: { eagerBuilds: () => false, checkRetryMs: 50, cacheBytes: 160 * 1024 }, onPrepared }));
    await e.start();
    const web = (buildId: string) => ({ project: 'p', appId: 'web', buildId, env: {}, hostnames: [] });
    artifacts.down.add('next');
    await e.deploy(web('next'), web('good'));
    await prepared.next('p/web#1');
    // Another app used since: the kept app serving its fallback is the least recently used.
    await deploy(e, 'a');
    expect(await send(e.address.port, 'a.p.od.test', '/')).toMatchObject({ status: 200 });
    artifacts.down.delete('next');
    // The check tries it again in place: its build, past the bound with the other's, is served, not let go (each
    // try would let it go again, the other app being used more lately).
    await vi.waitFor(() => expect(e.served('p', 'web')).toMatchObject({ buildId: 'next' }), { timeout: 10_000, interval: 20 });
    expect(e.preparationFailure('p', 'web')).toBeUndefined();
  });

  it('keeps a build a first request is unpacking from collection when the app is deployed over meanwhile (found in review)', async () => {
    const artifacts = new HeldArtifacts().put('b1', hello('b1')).put('b2', hello('b2'));
    const e = await start(artifacts, {});
    const web = (buildId: string) => ({ project: 'p', appId: 'web', buildId, env: {}, hostnames: [] });
    await e.deploy(web('b1'));
    const release = artifacts.hold('b1');
    const first = send(e.address.port, 'web.p.od.test', '/');
    await artifacts.asked('b1');
    // Deployed over and back while b1 is fetched: the passes between collect, and b1's fetch is still the one shared.
    await e.deploy(web('b2'));
    const back = e.deploy(web('b1'));
    release();
    await back;
    expect(await first).toMatchObject({ status: 200 });
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from b1' });
    expect(artifacts.fetchedBuilds).toEqual(['b1', 'b2']);
  });

  it('checks a new build given a fallback at deploy where the policy prepares new builds at once, serving the fallback when it cannot be', async () => {
    const broken = artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' });
    const e = await start(new MemoryArtifactSource().put('good', hello('good')).put('broken', broken), { eagerBuilds: () => true });
    await expect(e.deploy({ project: 'p', appId: 'web', buildId: 'broken', env: {}, hostnames: [] }, { project: 'p', appId: 'web', buildId: 'good', env: {}, hostnames: [] })).rejects.toThrow(
      /SyntaxError/,
    );
    expect(e.served('p', 'web')).toMatchObject({ buildId: 'good' });
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from good' });
  });

  it('keeps the unpacked builds of prepared apps within the cache bound in bytes', async () => {
    const artifacts = new MemoryArtifactSource().put('a', sized('a')).put('b', sized('b')).put('c', sized('c'));
    const e = await start(artifacts, { cacheBytes: 160 * 1024 });
    for (const app of ['a', 'b', 'c']) await deploy(e, app);
    for (const app of ['a', 'b', 'c']) expect(await send(e.address.port, `${app}.p.od.test`, '/')).toMatchObject({ status: 200, body: app });
    await expect.poll(() => builtOnDisk('a'), { timeout: 10_000 }).toBe(false);
    expect(builtOnDisk('b') && builtOnDisk('c')).toBe(true);
  });

  it('answers 503 with Retry-After when the build cannot be had, and tries again on the next request', async () => {
    const artifacts = new MemoryArtifactSource();
    const e = await start(artifacts, {});
    await deploy(e, 'late');
    const refused = await send(e.address.port, 'late.p.od.test', '/');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ status: 503, reason: 'AppPreparing', detail: 'The app could not be prepared on this replica; retry shortly.' });
    expect(e.served('p', 'late')?.onDemand).toBe(true);

    artifacts.put('late', hello('late'));
    expect(await send(e.address.port, 'late.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from late' });
    expect(artifacts.fetches).toBe(2);
  });

  it('remembers a build workerd refuses on its first request: 503 BuildFailed without trying it again, until a new deployment', async () => {
    const artifacts = new MemoryArtifactSource().put('broken', artifactFromFiles({ 'worker.js': 'export default { fetch( { return 1 } };' })).put('fixed', hello('fixed'));
    const prepared: string[] = [];
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const e = (engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'od.test', onDemand: {}, onPrepared: (key) => prepared.push(key) }));
    await e.start();
    await deploy(e, 'web', 'broken');
    for (let i = 0; i < 3; i++) {
      const refused = await send(e.address.port, 'web.p.od.test', '/');
      expect([refused.status, JSON.parse(refused.body).reason]).toEqual([503, 'BuildFailed']);
    }
    expect(artifacts.fetches).toBe(1);
    expect(prepared).toEqual(['p/web']);
    expect(String(e.preparationFailure('p', 'web')?.error)).toMatch(/SyntaxError/);

    await deploy(e, 'web', 'fixed');
    expect(e.preparationFailure('p', 'web')).toBeUndefined();
    expect(await send(e.address.port, 'web.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from fixed' });
  });

  it('answers 503 BuildFailed at once to the first request of an app whose first build its deploy found refused (found by a hostile run)', async () => {
    const artifacts = new MemoryArtifactSource().put('broken', artifactFromFiles({ 'worker.js': 'throw new Error("boom at top level");\nexport default {};' }));
    const e = await start(artifacts, { eagerBuilds: () => true });
    await expect(deploy(e, 'web', 'broken')).rejects.toThrow(/boom at top level/);
    expect(String(e.preparationFailure('p', 'web')?.error)).toMatch(/boom at top level/);
    const refused = await send(e.address.port, 'web.p.od.test', '/');
    expect([refused.status, JSON.parse(refused.body).reason]).toEqual([503, 'BuildFailed']);
    expect(artifacts.fetches).toBe(1);
  });

  it('answers 503 to a first request that waited its limit, and serves the next one from the preparation that went on', async () => {
    const artifacts = new MemoryArtifactSource().put('slow', hello('slow'));
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow: ArtifactSource = { fetch: async (ref) => (await released, artifacts.fetch(ref)) };
    dataDir = mkdtempSync(join(tmpdir(), 'cw-od-'));
    const e = (engine = new RuntimeEngine({ artifacts: slow, dataDir, baseDomain: 'od.test', onDemand: { firstRequestTimeoutMs: 200 } }));
    await e.start();
    await deploy(e, 'slow');
    const waited = await send(e.address.port, 'slow.p.od.test', '/');
    expect([waited.status, waited.headers['retry-after'], JSON.parse(waited.body).detail]).toEqual([503, '1', 'The app is being prepared on this replica; retry shortly.']);
    release();
    await expect.poll(() => e.served('p', 'slow')?.onDemand, { timeout: 10_000 }).toBeUndefined();
    expect(await send(e.address.port, 'slow.p.od.test', '/')).toMatchObject({ status: 200, body: 'hello from slow' });
    expect(artifacts.fetches).toBe(1);
  });

  it('prepares at deploy the new builds its policy asks for, not a new environment of an app it has not prepared', async () => {
    const artifacts = new MemoryArtifactSource().put('first', hello('first')).put('a', hello('a')).put('b', hello('b'));
    let eager = false;
    const e = await start(artifacts, { eagerBuilds: () => eager });
    expect((await deploy(e, 'a', 'first')).onDemand).toBe(true); // the first list
    eager = true;
    expect((await e.deploy({ project: 'p', appId: 'a', buildId: 'first', env: { ROTATED: 'token' }, hostnames: [] })).onDemand).toBe(true);
    expect(artifacts.fetches).toBe(0);
    expect((await deploy(e, 'a')).onDemand).toBeUndefined();
    expect((await deploy(e, 'b')).onDemand).toBeUndefined();
    expect(artifacts.fetches).toBe(2);
    expect(builtOnDisk('a') && builtOnDisk('b')).toBe(true);
  });
});
