import type { Registry } from 'prom-client';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';

/**
 * The repositories' bucket for the Repository controller, from the environment: CW_GIT_BUCKET (the bucket
 * cw-git's `store.bucket` names), and the object store settings the other components use: CW_S3_ENDPOINT
 * (absent: AWS), CW_S3_REGION (default us-east-1), CW_S3_ACCESS_KEY_ID with CW_S3_SECRET_ACCESS_KEY
 * (absent: the SDK's default credential chain), CW_S3_FORCE_PATH_STYLE (default true with an endpoint).
 * Without CW_GIT_BUCKET there is nothing to reconcile against: `disabled` says why. Throws one line naming
 * what is wrong otherwise (never a value of a secret).
 */
export function repositoryStoreFromEnv(env: NodeJS.ProcessEnv, registry: Registry): { store: RepoStore; bucket: string } | { disabled: string } {
  const bucket = env.CW_GIT_BUCKET;
  if (!bucket) return { disabled: 'CW_GIT_BUCKET is not set, so Repository resources are not reconciled (set it to the bucket cw-git serves)' };
  const accessKeyId = env.CW_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.CW_S3_SECRET_ACCESS_KEY || undefined;
  if (!accessKeyId !== !secretAccessKey) throw new Error('CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)');
  const pathStyle = env.CW_S3_FORCE_PATH_STYLE || undefined;
  if (pathStyle !== undefined && pathStyle !== 'true' && pathStyle !== 'false') throw new Error(`CW_S3_FORCE_PATH_STYLE must be true or false, not ${JSON.stringify(pathStyle)}`);
  const endpoint = env.CW_S3_ENDPOINT || undefined;
  const objects = new S3ObjectStore({
    bucket,
    registry,
    config: {
      region: env.CW_S3_REGION || 'us-east-1',
      // MinIO and most S3-compatible stores want path-style addressing; AWS itself does not need it.
      forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
      ...(endpoint ? { endpoint } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    },
  });
  return { store: new RepoStore({ store: objects, registry }), bucket };
}
