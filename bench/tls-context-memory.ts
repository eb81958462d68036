// The memory reference of the TLS section of bench/runtime.ts: what `count` TLS contexts of the same kind of
// certificate cost a bare Node process (run with --expose-gc), resident and V8 heap, after a full GC. The runtime's
// cost per cached certificate is compared with it. Argument: JSON {count}; prints one JSON line of bytes per context.
import { createSecureContext, type SecureContext } from 'node:tls';
import { TestCa } from '../runtime-server/tls/testing/test-ca.ts';
import { TLS_VERSIONS } from '../runtime-server/tls/tls-defaults.ts';

const { count } = JSON.parse(process.argv[2] ?? '{}') as { count: number };
const ca = await TestCa.create();
const certificates = await Promise.all(Array.from({ length: count }, (_, i) => ca.issue([`s${i}.example`])));
const gc = globalThis.gc ?? (() => {});
const settled = () => (gc(), gc(), process.memoryUsage());
const before = settled();
const held: SecureContext[] = certificates.map((c) => createSecureContext({ cert: c.chainPem, key: c.privateKeyPem, ...TLS_VERSIONS }));
const after = settled();
process.stdout.write(`${JSON.stringify({ contexts: held.length, rss: (after.rss - before.rss) / count, heapUsed: (after.heapUsed - before.heapUsed) / count })}\n`);
