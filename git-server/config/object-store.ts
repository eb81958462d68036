import type { Registry } from 'prom-client';
import type { RetryPolicy } from '../../src/object-store/retry.ts';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import type { GitServiceConfig } from './git-service-config.ts';

/** The bucket of `config.store`, behind the object-store port; its `service_store_*` metrics go to `registry`. */
export function createObjectStore(config: GitServiceConfig, options: { registry?: Registry; retry?: RetryPolicy } = {}): S3ObjectStore {
  return new S3ObjectStore({ config: config.store.s3, bucket: config.store.bucket, ...options });
}
