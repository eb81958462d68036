import type { S3Config } from './s3-config.ts';

/**
 * The object store settings the platform's processes read from the environment: CW_S3_ENDPOINT (absent: AWS),
 * CW_S3_REGION (default us-east-1), CW_S3_ACCESS_KEY_ID with CW_S3_SECRET_ACCESS_KEY (absent: the SDK's
 * default credential chain), CW_S3_FORCE_PATH_STYLE (default true with an endpoint). What is wrong is added
 * to `problems`, one line each, never showing a secret.
 */
export function s3ConfigFromEnv(env: NodeJS.ProcessEnv, problems: string[]): S3Config {
  const endpoint = env.CW_S3_ENDPOINT || undefined;
  const accessKeyId = env.CW_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.CW_S3_SECRET_ACCESS_KEY || undefined;
  if (!accessKeyId !== !secretAccessKey) problems.push('CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)');
  const pathStyle = env.CW_S3_FORCE_PATH_STYLE || undefined;
  if (pathStyle !== undefined && pathStyle !== 'true' && pathStyle !== 'false') {
    problems.push(`CW_S3_FORCE_PATH_STYLE must be true or false, not ${JSON.stringify(pathStyle)}`);
  }
  return {
    ...(endpoint ? { endpoint } : {}),
    region: env.CW_S3_REGION || 'us-east-1',
    // MinIO and most S3-compatible stores want path-style addressing; AWS itself does not need it.
    forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}
