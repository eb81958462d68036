import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as connectHttp2 } from 'node:http2';
import type { Duplex } from 'node:stream';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TlsCertificate } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { MemorySource } from '../../src/controller-runtime/source.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { certificateObjectKey, type StoredCertificate } from '../../src/tls/certificate-objects.ts';
import { SealedStore } from '../../src/tls/sealed-store.ts';
import { hostOf } from '../engine/entry-proxy.ts';
import { ContextCache } from './context-cache.ts';
import { MAX_CONCURRENT_STREAMS, startHttpsListener } from './https-listener.ts';
import { sealedCertificateLoader } from './sealed-certificates.ts';
import { ServedCertificates } from './served-certificates.ts';
import { tlsCertificate } from './testing/certificates.ts';
import { TestCa } from './testing/test-ca.ts';
import { tlsMetrics } from './tls-metrics.ts';

// The listener with its real parts but the informer and the bucket: a TLS handshake per test, by SNI.
const sealed = new SealedStore(new MemoryObjectStore(), randomBytes(32));
const certificates = new MemorySource<TlsCertificate>();
const registry = new Registry();
let ca: TestCa;
let served: ServedCertificates;
let listener: Awaited<ReturnType<typeof startHttpsListener>>;
let cache: ContextCache;

/** Stores a certificate as the operator does, then writes the status naming it. */
async function issue(namespace: string, name: string, dnsNames: string[]): Promise<StoredCertificate> {
  const stored = await ca.issue(dnsNames);
  await sealed.put(certificateObjectKey(namespace, name, stored.serial), stored);
  certificates.upsert(tlsCertificate(namespace, name, dnsNames, { state: 'Issued', serial: stored.serial, dnsNames, notAfter: stored.notAfter }));
  return stored;
}

/** One handshake with `servername`, trusting the test CA: the peer's serial, or the error. */
function handshake(servername: string | undefined, options: ConnectionOptions = {}): Promise<{ serial: string; socket: TLSSocket } | { error: Error }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: listener.address.port, ca: ca.certPem, ...(servername ? { servername } : {}), ALPNProtocols: ['h2', 'http/1.1'], ...options }, () => {
      // A resumed TLS 1.2 session shows no peer certificate.
      resolve({ serial: (socket.getPeerCertificate().serialNumber as string | undefined)?.toLowerCase() ?? '', socket });
    });
    socket.once('error', (error) => resolve({ error }));
  });
}

async function served_(servername: string): Promise<string> {
  const result = await handshake(servername);
  if ('error' in result) throw result.error;
  result.socket.end();
  return result.serial;
}

async function metric(outcome: string): Promise<number> {
  const values = (await registry.getSingleMetric('cloudwright_runtime_tls_handshakes_total')?.get())?.values ?? [];
  return values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

beforeAll(async () => {
  ca = await TestCa.create();
  cache = new ContextCache({ max: 10, load: sealedCertificateLoader(sealed) });
  served = new ServedCertificates({ certificates, cache, mayServe: (namespace, host) => host.endsWith(`.${namespace}.test`) });
  const metrics = tlsMetrics(registry, { cacheSize: () => cache.size, certificates: () => served.certificates });
  listener = await startHttpsListener({
    port: 0,
    host: '127.0.0.1',
    SNICallback: served.SNICallback,
    known: (name) => served.lookup(name) !== undefined,
    metrics,
    idleMs: 300,
    serve: (server) => {
      server.on('request', (req: IncomingMessage, res: ServerResponse) => res.end(`hello ${hostOf(req)} over HTTP/${req.httpVersion}`));
      server.on('upgrade', (req: IncomingMessage, socket: Duplex) => socket.end(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${req.headers.upgrade}\r\nconnection: upgrade\r\n\r\n`));
    },
  });
});
afterAll(() => listener?.close());

describe('the HTTPS listener', () => {
  it('serves the certificate of the server name, preloaded before the first handshake', async () => {
    const stored = await issue('alpha', 'shop', ['www.alpha.test']);
    await cache.preload({ namespace: 'alpha', name: 'shop', serial: stored.serial, notAfter: '' }); // already started by the index: joins it
    expect(cache.size).toBe(1);
    const result = await handshake('www.alpha.test');
    if ('error' in result) throw result.error;
    expect(result.serial).toBe(stored.serial);
    expect(result.socket.alpnProtocol).toBe('h2');
    expect(['TLSv1.2', 'TLSv1.3']).toContain(result.socket.getProtocol());
    result.socket.end();
  });

  it('speaks HTTP/2 to a client that offers it, with the same request listener', async () => {
    const session = connectHttp2(`https://www.alpha.test:${listener.address.port}`, { ca: ca.certPem, host: '127.0.0.1', servername: 'www.alpha.test' });
    try {
      const stream = session.request({ ':path': '/' });
      let body = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      const status = await new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
      await new Promise((resolve) => stream.once('end', resolve));
      expect([status, body]).toEqual([200, `hello www.alpha.test:${listener.address.port} over HTTP/2.0`]);
      // It tells the client how many streams it may have open at once.
      expect(session.remoteSettings.maxConcurrentStreams).toBe(MAX_CONCURRENT_STREAMS);
    } finally {
      session.close();
    }
  });

  it('closes an idle HTTP/2 connection after the idle timeout (GOAWAY)', async () => {
    const session = connectHttp2(`https://www.alpha.test:${listener.address.port}`, { ca: ca.certPem, host: '127.0.0.1', servername: 'www.alpha.test' });
    const goaway = new Promise((resolve) => session.once('goaway', resolve));
    const stream = session.request({ ':path': '/' });
    stream.resume();
    await new Promise((resolve) => stream.once('end', resolve));
    await goaway;
    session.destroy();
  });

  it('hands an HTTP/1.1 upgrade to the upgrade listener', async () => {
    const result = await handshake('www.alpha.test', { ALPNProtocols: ['http/1.1'] });
    if ('error' in result) throw result.error;
    result.socket.write('GET /ws HTTP/1.1\r\nhost: www.alpha.test\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n');
    let head = '';
    result.socket.setEncoding('utf8').on('data', (chunk: string) => (head += chunk));
    await new Promise((resolve) => result.socket.once('end', resolve));
    expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\nupgrade: websocket/);
    result.socket.destroy();
  });

  it('serves a wildcard for a name under it, loading on a miss', async () => {
    const stored = await issue('beta', 'wild', ['*.beta.test']);
    cache.forget({ namespace: 'beta', name: 'wild', serial: stored.serial, notAfter: '' }); // as if evicted
    expect(await served_('api.beta.test')).toBe(stored.serial);
  });

  it("fails the handshake of an unknown name, of a name whose certificate is not its namespace's to serve, and without SNI", async () => {
    // gamma's status names a certificate for alpha's name: not served for it.
    await issue('gamma', 'thief', ['stolen.alpha.test']);
    const before = [await metric('unknown_name'), await metric('no_server_name')];
    for (const name of ['nobody.test', 'stolen.alpha.test']) {
      const result = await handshake(name);
      expect('error' in result && result.error.message).toMatch(/handshake failure|alert/i);
    }
    const none = await handshake(undefined, { checkServerIdentity: () => undefined });
    expect('error' in none).toBe(true);
    expect(await metric('unknown_name')).toBe(before[0]! + 2);
    expect(await metric('no_server_name')).toBe(before[1]! + 1);
  });

  it('serves a renewed serial without a restart', async () => {
    const first = await served_('www.alpha.test');
    const renewed = await issue('alpha', 'shop', ['www.alpha.test']);
    expect(renewed.serial).not.toBe(first);
    expect(await served_('www.alpha.test')).toBe(renewed.serial);
  });

  it.each(['TLSv1.2', 'TLSv1.3'] as const)('resumes a %s session with its ticket', async (version) => {
    const first = await handshake('www.alpha.test', { minVersion: version, maxVersion: version });
    if ('error' in first) throw first.error;
    // TLS 1.3 sends its tickets after the handshake; TLS 1.2's comes with it (and is there already).
    const session = await new Promise<Buffer>((resolve) => {
      const now = version === 'TLSv1.2' ? first.socket.getSession() : undefined;
      if (now) resolve(now);
      else first.socket.once('session', resolve);
    });
    first.socket.end();
    const before = await metric('resumed');
    const resumed = await handshake('www.alpha.test', { minVersion: version, maxVersion: version, session });
    if ('error' in resumed) throw resumed.error;
    expect(resumed.socket.isSessionReused()).toBe(true);
    resumed.socket.end();
    await new Promise((resolve) => resumed.socket.once('close', resolve));
    expect(await metric('resumed')).toBe(before + 1);
  });

  it('refuses TLS 1.1', async () => {
    const result = await handshake('www.alpha.test', { minVersion: 'TLSv1', maxVersion: 'TLSv1.1' });
    expect('error' in result).toBe(true);
  });
});
