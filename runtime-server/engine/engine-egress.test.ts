// An app's fetch() to the IPv6 forms of a private IPv4 address (NAT64, 6to4, IPv4-compatible, IPv4-translated) is
// refused by workerd's network filter, on the real workerd: the app sees workerd's "internal error; reference = <id>"
// and workerd logs "connecting to … is not allowed" under that id. workerd's `public` filter alone let every one of
// these through (review-183 F4): the app got "Network connection lost." and workerd had tried to connect.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalReason } from '../../e2e/harness/egress-probe.ts';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const PROBE = `export default { async fetch(request) {
  const target = new URL(request.url).searchParams.get('url');
  try { const r = await fetch(target, { redirect: 'manual' }); return new Response('reached ' + r.status); } catch (e) { return new Response('refused ' + e); }
} };`;
const artifacts = new MemoryArtifactSource().put('probe', artifactFromFiles({ 'worker.js': PROBE }));

describe("an app's fetch to a private IPv4 address in an IPv6 form", { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-egress-'));
  const lines: string[] = [];
  const record = (message: string) => lines.push(message);
  const engine = new RuntimeEngine({
    artifacts,
    dataDir,
    baseDomain: 'apps.test',
    publicScheme: 'http',
    shards: 1,
    log: { debug: record, info: record, warn: record, error: record },
  });
  let port = 0;
  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'egressp', appId: 'probe', buildId: 'probe', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reasonFor = (reference: string) => refusalReason(lines.join('\n'), reference);

  it('is refused by the filter, with its reason in the log, as the plain address is', async () => {
    const hosts = [
      '127.0.0.1', // the plain address: refused by workerd's own `public` filter
      '[64:ff9b::7f00:1]', // well-known NAT64 prefix, 127.0.0.1
      '[64:ff9b::a9fe:a9fe]', // well-known NAT64 prefix, the metadata address 169.254.169.254
      '[64:ff9b::a00:5]', // well-known NAT64 prefix, 10.0.0.5
      '[64:ff9b:1::7f00:1]', // local-use NAT64 prefix
      '[64:ff9b:1:a00:0:500::]', // local-use NAT64 prefix in its /48 layout (RFC 6052): 10.0.0.5 split around the u octet
      '[2002:7f00:1::1]', // 6to4, 127.0.0.1
      '[2002:a9fe:a9fe::1]', // 6to4, 169.254.169.254
      '[::7f00:1]', // IPv4-compatible, 127.0.0.1
      '[::a9fe:a9fe]', // IPv4-compatible, 169.254.169.254
      '[::ffff:0:7f00:1]', // IPv4-translated, 127.0.0.1
    ];
    const references = new Map<string, string>();
    for (const host of hosts) {
      const url = `http://${host}:9/`;
      const res = await send(port, 'probe.egressp.apps.test', `/?url=${encodeURIComponent(url)}`);
      expect(res.body, url).toMatch(/^refused .*internal error; reference = \w+/);
      const reference = /reference = (\w+)/.exec(res.body)?.[1];
      expect(reference, url).toBeDefined();
      references.set(url, reference ?? '');
    }
    const deadline = Date.now() + 10_000;
    while ([...references.values()].some((reference) => reasonFor(reference) === undefined) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [url, reference] of references) {
      const address = new URL(url).hostname.replace(/^\[|\]$/g, '');
      expect(reasonFor(reference), `${url}: workerd's reason for ${reference}`).toBe(`connecting to ${address}:9 is not allowed`);
    }
  });
});
