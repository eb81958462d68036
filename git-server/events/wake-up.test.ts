import { describe, expect, it } from 'vitest';
import { repoOfManifestKey, repositoriesToWake } from './wake-up.ts';

/** A record as MinIO's webhook target sends it (trimmed of nothing the bridge reads); keys are URL-encoded. */
function minioRecord(key: string, eventName = 's3:ObjectCreated:Put') {
  return {
    eventVersion: '2.0',
    eventSource: 'minio:s3',
    awsRegion: '',
    eventTime: '2030-01-02T03:04:05.678Z',
    eventName,
    userIdentity: { principalId: 'minioadmin' },
    requestParameters: { principalId: 'minioadmin', region: '', sourceIPAddress: '127.0.0.1' },
    responseElements: {
      'x-amz-id-2': 'dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8',
      'x-amz-request-id': '1809C0D3D5A8A3F2',
      'x-minio-deployment-id': 'a3b2',
      'x-minio-origin-endpoint': 'http://127.0.0.1:9000',
    },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'Config',
      bucket: { name: 'cw-git', ownerIdentity: { principalId: 'minioadmin' }, arn: 'arn:aws:s3:::cw-git' },
      object: { key, size: 1024, eTag: '2d2b7b0a4e0f6e4f8c1e8f5b7e7a9c3d', contentType: 'application/json', userMetadata: { 'content-type': 'application/json' }, sequencer: '1809C0D3D5B2E1A4' },
    },
    source: { host: '127.0.0.1', port: '', userAgent: 'aws-sdk-js/3' },
  };
}

describe('repositoriesToWake', () => {
  it('takes the manifest keys of a storage notification, URL-decoded, each repository once', () => {
    const body = {
      EventName: 's3:ObjectCreated:Put',
      Key: 'cw-git/repos/acme/site/manifest.json',
      Records: [
        minioRecord('repos%2Facme%2Fsite%2Fmanifest.json'),
        minioRecord('repos/acme/site/log/00000000000000000003.json'),
        minioRecord('repos/acme/site/manifest.json'),
        minioRecord('repos/Acme/my.repo-2/manifest.json'),
        minioRecord('pending/acme/site.json'),
        minioRecord('repos/acme/site/manifest.json.tmp'),
        minioRecord('repos%ZZ'),
        { s3: {} },
        'nonsense',
      ],
    };
    expect(repositoriesToWake(body)).toEqual({ repos: ['acme/site', 'Acme/my.repo-2'] });
    expect(repositoriesToWake({ Records: [] })).toEqual({ repos: [] });
  });

  it('takes {key} (a raw object key) and {repo}', () => {
    expect(repositoriesToWake({ key: 'repos/acme/site/manifest.json' })).toEqual({ repos: ['acme/site'] });
    expect(repositoriesToWake({ key: 'repos/acme/site/events/cursor.json' })).toEqual({ repos: [] });
    expect(repositoriesToWake({ repo: 'acme/site' })).toEqual({ repos: ['acme/site'] });
  });

  it.each([[null], [[]], ['repos/a/b/manifest.json'], [{}], [{ Records: 'x' }], [{ key: 3 }], [{ repo: 'not a repo' }], [{ repo: 'a/b/c' }]])('refuses %j with a reason', (body) => {
    expect(repositoriesToWake(body)).toEqual({ error: expect.any(String) });
  });

  it('recognises only manifests of valid repository names', () => {
    expect(repoOfManifestKey('repos/a/b/manifest.json')).toBe('a/b');
    expect(repoOfManifestKey('repos/../b/manifest.json')).toBeUndefined();
    expect(repoOfManifestKey('repos/a/b.git/manifest.json')).toBeUndefined();
    expect(repoOfManifestKey('x/repos/a/b/manifest.json')).toBeUndefined();
  });
});
