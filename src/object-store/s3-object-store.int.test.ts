import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { StoreUnavailableError } from './object-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { describeObjectStoreContract } from './testing/object-store-contract.ts';

const bucket = inject('bucket');
const store = new S3ObjectStore({ config: inject('s3'), bucket, registry: new Registry() });
afterAll(() => store.destroy());

describeObjectStoreContract('S3ObjectStore on MinIO', () => ({ store, prefix: () => `contract/${randomBytes(4).toString('hex')}/` }));

async function counter(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const out: Record<string, number> = {};
  for (const v of (metric?.values ?? []) as { labels: Record<string, string>; value: number }[]) {
    out[Object.values(v.labels).join(',')] = v.value;
  }
  return out;
}

const fastRetry = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

/** An HTTP proxy to MinIO that answers the first `failures` requests with 503 SlowDown itself. */
async function flakyProxy(target: string, failures: number): Promise<{ server: Server; endpoint: string }> {
  const upstream = new URL(target);
  let left = failures;
  const server = createServer((req, res) => {
    if (left > 0) {
      left--;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>');
      return;
    }
    // The Host header is forwarded untouched, so MinIO checks the signature the client computed for the proxy.
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('S3ObjectStore requests, retries and metrics', () => {
  it('prints nothing of the SDK’s own: a streamed conditional create that meets an object answers precondition-failed, no console line', async () => {
    const key = `quiet/${randomBytes(4).toString('hex')}`;
    await store.put(key, 'first', { ifNoneMatch: '*' });
    const warn = vi.spyOn(console, 'warn');
    try {
      const body = { length: 6, open: () => Readable.from([Buffer.from('second')]) };
      expect(await store.put(key, body, { ifNoneMatch: '*' })).toMatchObject({ kind: 'precondition-failed' });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('counts every request by op and outcome', async () => {
    const registry = new Registry();
    const s = new S3ObjectStore({ config: inject('s3'), bucket, registry });
    const key = `metrics/${randomBytes(4).toString('hex')}`;
    const put = await s.put(key, 'x', { ifNoneMatch: '*' });
    await s.put(key, 'y', { ifNoneMatch: '*' });
    await s.get(key, { ifNoneMatch: put.kind === 'written' ? put.etag : '' });
    await s.get(`${key}-missing`);
    await s.head(key);
    await s.list(key);
    await s.delete(key);
    s.destroy();
    expect(await counter(registry, 'service_store_requests_total')).toEqual({
      'put,ok': 1,
      'put,precondition_failed': 1,
      'get,ok': 1,
      'get,not_found': 1,
      'head,ok': 1,
      'list,ok': 1,
      'delete,ok': 1,
    });
  });

  it('retries retryable answers within its budget, counting each retry', async () => {
    const proxy = await flakyProxy(inject('s3').endpoint ?? '', 2);
    const registry = new Registry();
    const s = new S3ObjectStore({ config: { ...inject('s3'), endpoint: proxy.endpoint }, bucket, registry, retry: fastRetry });
    try {
      const key = `retry/${randomBytes(4).toString('hex')}`;
      expect((await s.put(key, 'body')).kind).toBe('written');
      expect(await counter(registry, 'service_store_retries_total')).toEqual({ put: 2 });
      expect(await counter(registry, 'service_store_requests_total')).toEqual({ 'put,retryable_error': 2, 'put,ok': 1 });
    } finally {
      s.destroy();
      proxy.server.close();
    }
  });

  it('throws StoreUnavailableError when the store cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const registry = new Registry();
    const s = new S3ObjectStore({ config: { ...inject('s3'), endpoint: `http://127.0.0.1:${port}` }, bucket, registry, retry: fastRetry });
    try {
      const err = await s.get('anything').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err).toMatchObject({ code: 'store_unavailable', retryable: true, status: 503, op: 'get' });
      expect(await counter(registry, 'service_store_requests_total')).toEqual({ 'get,retryable_error': 3 });
      expect(await counter(registry, 'service_store_retries_total')).toEqual({ get: 2 });
    } finally {
      s.destroy();
    }
  });

  it('does not retry an error a retry cannot fix', async () => {
    const registry = new Registry();
    const s = new S3ObjectStore({ config: inject('s3'), bucket: `no-such-bucket-${randomBytes(4).toString('hex')}`, registry, retry: fastRetry });
    try {
      const err = await s.put('k', 'v').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(StoreUnavailableError);
      expect(await counter(registry, 'service_store_requests_total')).toEqual({ 'put,error': 1 });
    } finally {
      s.destroy();
    }
  });
});
