import { afterAll, inject } from 'vitest';
import { Registry } from 'prom-client';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { describeReplicaSuite } from './testing/replica-suite.ts';

const store = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
afterAll(() => store.destroy());

describeReplicaSuite('TenantReplica on MinIO', () => store);
