/** Where an S3-compatible object store is and how to reach it. */
export interface S3Config {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Static keys; when absent the SDK's default credential chain is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * The SDK's own log lines, dropped: its one warning ("An error was encountered in a non-retryable streaming
 * request", on every failed PUT of a stream, a conditional create's 412 included) went to `console` as a bare line
 * among each process's JSON logs, and the store classifies, counts and retries every failure itself. Not the SDK's
 * `NoOpLogger`, which its retry middleware swaps for `console`.
 */
const SDK_LOG_NOTHING = { debug() {}, info() {}, warn() {}, error() {} };

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
    logger: SDK_LOG_NOTHING,
  } as const;
}
