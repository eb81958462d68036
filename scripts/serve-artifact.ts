// Serves an artifact with the runtime engine (real workerd, in-memory ArtifactSource) and requests a few paths
// through the entry point with a Host header, as cw-runtime would. From the repository root:
//   node scripts/serve-artifact.ts next.tar.zst [/,/logo.svg,...]
// Set HOLD=<ms> to keep serving (and print the port) for curl: curl -H 'Host: next.example.test' localhost:<port>/
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArtifact } from '../src/app-artifacts/artifact.ts';
import { RuntimeEngine } from '../runtime-server/engine/engine.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { MemoryArtifactSource } from '../runtime-server/engine/testing/memory-artifacts.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: serve-artifact.ts ARTIFACT.tar.zst [comma-separated paths]');
const bytes = new Uint8Array(readFileSync(file));
const artifact = await parseArtifact(bytes);
console.log(`parsed: modules ${artifact.modules.map((m) => `${m.name} (${m.type})`).join(', ')}; ${artifact.compatibilityDate} ${artifact.compatibilityFlags.join(' ')}`);

const dataDir = mkdtempSync(join(tmpdir(), 'cw-next-'));
const engine = new RuntimeEngine({
  artifacts: new MemoryArtifactSource().put('next', bytes),
  dataDir,
  baseDomain: 'apps.test',
  publicScheme: 'http',
  ...(process.env.CW_WORKERD_BIN ? { workerdBinary: process.env.CW_WORKERD_BIN } : {}),
});
try {
  await engine.start();
  const { port } = engine.address;
  let started = performance.now();
  await engine.deploy({ project: 'demo', appId: 'next', buildId: 'next', env: { GREETING: 'Bonjour' }, hostnames: ['next.example.test'] });
  console.log(`deployed in ${Math.round(performance.now() - started)} ms`);
  for (const path of (process.argv[3] ?? '/,/,/logo.svg,/nope').split(',')) {
    started = performance.now();
    const response = await send(port, 'next.example.test', path);
    const shown = response.body.match(/<h1>.*?<\/h1>/)?.[0] ?? response.body.slice(0, 80);
    console.log(`GET ${path} → ${response.status} ${response.headers['content-type']} in ${Math.round(performance.now() - started)} ms: ${shown.replace(/\s+/g, ' ')}`);
  }
  if (process.env.HOLD) {
    console.log(`serving on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.HOLD)));
  }
} finally {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
