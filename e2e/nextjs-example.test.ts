// The Next.js example (docs/examples/nextjs, built with OpenNext's Cloudflare adapter by
// `make example-nextjs`, which `make test` runs first) served by the runtime engine on real workerd: a
// server-rendered page reading process.env, static assets with their headers, Next's own 404.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from '../runtime-server/engine/engine.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { MemoryArtifactSource } from '../runtime-server/engine/testing/memory-artifacts.ts';
import { repoRoot } from './harness/tools.ts';

const artifactPath = join(repoRoot, '.tools', 'nextjs-example.tar.zst');
const dataDir = mkdtempSync(join(tmpdir(), 'cw-next-'));
let engine: RuntimeEngine;
let port: number;

beforeAll(async () => {
  if (!existsSync(artifactPath)) throw new Error(`${artifactPath} is missing: run \`make example-nextjs\``);
  const bytes = new Uint8Array(readFileSync(artifactPath));
  engine = new RuntimeEngine({
    artifacts: new MemoryArtifactSource().put('next', bytes),
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    // Next's first request evaluates its whole bundle (about half a second of CPU): far more than a request may
    // compute here, within the startup allowance (default 1 s) a cold start is given. Later requests take ~20 ms.
    limits: { cpuLimitMs: 100 },
  });
  await engine.start();
  ({ port } = engine.address);
  await engine.deploy({ project: 'demo', appId: 'next', buildId: 'next', env: { GREETING: 'Bonjour' }, hostnames: ['next.example.test'] });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the Next.js example on the runtime', () => {
  it('renders the page on the server with the app environment', async () => {
    const page = await send(port, 'next.example.test', '/');
    expect(page.status).toBe(200);
    // React separates adjacent text nodes with an empty comment.
    expect(page.body).toMatch(/<h1>Bonjour(<!-- -->)? from Next\.js on Cloudwright<\/h1>/);
    expect((await send(port, 'next.demo.apps.test', '/')).body).toContain('Bonjour');
    // Its cold start stopped no shard.
    expect(engine.limits.quarantine('demo/next')).toBeUndefined();
    expect(engine.status().shards.map((shard) => shard.restarts)).toEqual(engine.status().shards.map(() => 0));
  });

  it('serves static assets, with the headers the app declares, and Next’s 404', async () => {
    const logo = await send(port, 'next.example.test', '/logo.svg');
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((await send(port, 'next.example.test', '/nope')).status).toBe(404);
    expect((await send(port, 'next.example.test', '/_headers')).status).toBe(404);
  });
});
