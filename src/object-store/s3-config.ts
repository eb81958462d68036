/** Where an S3-compatible object store is and how to reach it. */
export interface S3Config {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Static keys; when absent the SDK's default credential chain is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * The S3 client's settings for `config`: checksums only where a call asks for them (pack writes pass `sha256`),
 * so no CRC trailer on every PUT and none in a presigned URL that a plain HTTP client then has to send.
 */
export function s3ClientSettings(config: S3Config) {
  return {
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  } as const;
}
