import type { ObjectStore } from '../src/object-store/object-store.ts';
import { s3ConfigFromEnv } from '../src/object-store/s3-env.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';

/**
 * The bucket build artifacts go to: CW_S3_BUCKET, with the object store settings every platform process
 * reads the same way (`s3ConfigFromEnv`: CW_S3_ENDPOINT, CW_S3_REGION, CW_S3_ACCESS_KEY_ID with
 * CW_S3_SECRET_ACCESS_KEY, CW_S3_FORCE_PATH_STYLE). `undefined` without CW_S3_BUCKET: every route is still
 * served, and deploys, rollbacks and app deletion answer 503.
 *
 * @throws Error with one line naming what is wrong (half a key pair, a bad CW_S3_FORCE_PATH_STYLE).
 */
export function artifactsFromEnv(env: NodeJS.ProcessEnv): ObjectStore | undefined {
  const problems: string[] = [];
  const config = s3ConfigFromEnv(env, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const bucket = env.CW_S3_BUCKET;
  return bucket ? new S3ObjectStore({ bucket, config }) : undefined;
}
