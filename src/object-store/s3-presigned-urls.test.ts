import { describe, expect, it } from 'vitest';
import { MAX_PRESIGNED_SECONDS } from './presigned-urls.ts';
import { S3UrlSigner } from './s3-presigned-urls.ts';

const credentials = { accessKeyId: 'AKIDPRESIGNTEST', secretAccessKey: 'presign-test-secret-key-never-in-a-url' };
const signedAt = new Date('2026-11-29T08:00:00Z');
const signer = new S3UrlSigner({
  config: { endpoint: 'http://10.244.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials },
  bucket: 'artifacts',
  now: () => signedAt,
});

describe('S3UrlSigner', () => {
  it('signs one key of the bucket with SigV4 in the query: the expiry, the signing time and the key id, never the secret', async () => {
    const url = new URL(await signer.presign('builds/p1/b 1/source.tar.gz', 'GET', 600));
    expect(url.origin).toBe('http://10.244.0.1:9000');
    expect(url.pathname).toBe('/artifacts/builds/p1/b%201/source.tar.gz');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261129T080000Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDPRESIGNTEST/20261129/us-east-1/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.href).not.toContain(credentials.secretAccessKey);
    // No checksum or SDK header the builder's plain fetch would have to send; x-id names the operation.
    expect([...url.searchParams.keys()].filter((name) => !name.startsWith('X-Amz-') || /checksum|sdk/i.test(name))).toEqual(['x-id']);
    expect(url.searchParams.get('x-id')).toBe('GetObject');
  });

  it('signs the method: a GET URL and a PUT URL of one key at one time differ only in their operation and signature', async () => {
    const get = new URL(await signer.presign('k', 'GET', 60));
    const put = new URL(await signer.presign('k', 'PUT', 60));
    expect(get.searchParams.get('X-Amz-Signature')).not.toBe(put.searchParams.get('X-Amz-Signature'));
    expect(put.searchParams.get('x-id')).toBe('PutObject');
    for (const url of [get, put]) for (const name of ['X-Amz-Signature', 'x-id']) url.searchParams.delete(name);
    expect(get.href).toBe(put.href);
  });

  it('refuses an expiry outside 1 s to seven days, and an empty or absolute key', async () => {
    for (const seconds of [0, -1, 1.5, MAX_PRESIGNED_SECONDS + 1, Number.NaN]) {
      await expect(signer.presign('k', 'PUT', seconds), String(seconds)).rejects.toThrow(/lasts 1 to 604800 whole seconds/);
    }
    await expect(signer.presign('', 'GET', 60)).rejects.toThrow(/cannot presign the key ""/);
    await expect(signer.presign('/k', 'GET', 60)).rejects.toThrow(/cannot presign the key "\/k"/);
    expect(new URL(await signer.presign('k', 'GET', MAX_PRESIGNED_SECONDS)).searchParams.get('X-Amz-Expires')).toBe('604800');
  });
});
