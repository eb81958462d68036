/** Where an S3-compatible object store is and how to reach it. */
export interface S3Config {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Static keys; when absent the SDK's default credential chain is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}
