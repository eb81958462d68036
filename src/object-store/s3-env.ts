import { ConfigError, type EnvReader } from '../config/env.ts';
import type { S3Config } from './s3-config.ts';

/**
 * The object store settings the platform's processes read from the environment: CW_S3_ENDPOINT (an http(s)
 * URL; absent: AWS), CW_S3_REGION (default us-east-1), CW_S3_ACCESS_KEY_ID with CW_S3_SECRET_ACCESS_KEY
 * (absent: the SDK's default credential chain), CW_S3_FORCE_PATH_STYLE (default true with an endpoint).
 *
 * @throws ConfigError naming the variable (never showing a secret).
 */
export function s3ConfigFromEnv(read: EnvReader): S3Config {
  const endpoint = read.url('CW_S3_ENDPOINT');
  const accessKeyId = read.optional('CW_S3_ACCESS_KEY_ID');
  const secretAccessKey = read.optional('CW_S3_SECRET_ACCESS_KEY');
  if (!accessKeyId !== !secretAccessKey) throw new ConfigError('CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)');
  return {
    ...(endpoint ? { endpoint } : {}),
    region: read.string('CW_S3_REGION', 'us-east-1'),
    // MinIO and most S3-compatible stores want path-style addressing; AWS itself does not need it.
    forcePathStyle: read.bool('CW_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}
