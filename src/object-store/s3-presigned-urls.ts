// ObjectUrlSigner on S3: SigV4 query-string signatures made locally from the store's credentials. The only
// module that imports @aws-sdk/s3-request-presigner.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checkPresignRequest, type ObjectUrlSigner, type PresignedMethod } from './presigned-urls.ts';
import { s3ClientSettings, type S3Config } from './s3-config.ts';

export interface S3UrlSignerOptions {
  /** The endpoint in the URLs is `config.endpoint`: it must be an address the URLs' users reach (the signature covers the host). */
  config: S3Config;
  bucket: string;
  /** The signing time; the URL is valid from then for its expiry. Tests pass a past one to get an expired URL. */
  now?: () => Date;
}

export class S3UrlSigner implements ObjectUrlSigner {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #now: () => Date;

  constructor(options: S3UrlSignerOptions) {
    this.#client = new S3Client(s3ClientSettings(options.config));
    this.#bucket = options.bucket;
    this.#now = options.now ?? (() => new Date());
  }

  async presign(key: string, method: PresignedMethod, expiresInSeconds: number): Promise<string> {
    checkPresignRequest(key, expiresInSeconds);
    const input = { Bucket: this.#bucket, Key: key };
    const command = method === 'GET' ? new GetObjectCommand(input) : new PutObjectCommand(input);
    return getSignedUrl(this.#client, command, { expiresIn: expiresInSeconds, signingDate: this.#now() });
  }

  destroy(): void {
    this.#client.destroy();
  }
}
