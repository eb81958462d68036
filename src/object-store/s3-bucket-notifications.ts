// A bucket's event notifications: every manifest write (`repos/<owner>/<repo>/manifest.json`, the last step of
// every publish) sent to a queue, such as MinIO's webhook target pointed at cw-git's `POST /_events/notify`,
// so the events bridge wakes within a second of a push. Set up by `make dev` and the tests; a deployment
// configures its own store (docs/repository-service.md, "Bucket notifications in make dev").
import { GetBucketNotificationConfigurationCommand, PutBucketNotificationConfigurationCommand, S3Client, type QueueConfiguration } from '@aws-sdk/client-s3';
import type { S3Config } from './s3-config.ts';

/** The id our queue configuration carries (S3 `Id`), by which it is replaced; MinIO's records say `configurationId: "Config"` whatever it is. */
export const MANIFEST_NOTIFICATION_ID = 'cw-git-manifest-writes';

/** The queue ARN of MinIO's webhook target `id` (`MINIO_NOTIFY_WEBHOOK_ENABLE_<id>`), valid in any region. */
export function minioWebhookArn(id: string): string {
  return `arn:minio:sqs::${id}:webhook`;
}

/** The queue configuration for manifest writes: objects created under `repos/` whose key ends `/manifest.json`. */
export function manifestWritesQueue(queueArn: string): QueueConfiguration {
  return {
    Id: MANIFEST_NOTIFICATION_ID,
    QueueArn: queueArn,
    Events: ['s3:ObjectCreated:*'],
    Filter: {
      Key: {
        FilterRules: [
          { Name: 'prefix', Value: 'repos/' },
          { Name: 'suffix', Value: '/manifest.json' },
        ],
      },
    },
  };
}

function client(config: S3Config): S3Client {
  return new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
  });
}

/**
 * Sends manifest writes in `bucket` to `queueArn`. Idempotent; the bucket's other notification rules are kept
 * (S3's PUT replaces the whole configuration, so ours is swapped in by its id, the rest read back and resent).
 * The target must exist on the store's side (MinIO: enabled at start; else `InvalidArgument`, ARN not found),
 * but need not be reachable.
 */
export async function putManifestNotifications(config: S3Config, bucket: string, queueArn: string): Promise<void> {
  const s3 = client(config);
  try {
    const current = await s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    const others = (current.QueueConfigurations ?? []).filter((queue) => queue.Id !== MANIFEST_NOTIFICATION_ID);
    await s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucket,
        NotificationConfiguration: {
          QueueConfigurations: [...others, manifestWritesQueue(queueArn)],
          ...(current.TopicConfigurations?.length ? { TopicConfigurations: current.TopicConfigurations } : {}),
          ...(current.LambdaFunctionConfigurations?.length ? { LambdaFunctionConfigurations: current.LambdaFunctionConfigurations } : {}),
        },
      }),
    );
  } finally {
    s3.destroy();
  }
}
