import { CreateBucketCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { S3Config } from './s3-config.ts';

/** Creates the bucket unless it already exists (idempotent, so restarts and parallel starts are safe). */
export async function ensureBucket(config: S3Config, bucket: string): Promise<void> {
  const client = new S3Client({ ...config, endpoint: config.endpoint });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const code = err instanceof S3ServiceException ? err.name : '';
    if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
  } finally {
    client.destroy();
  }
}
