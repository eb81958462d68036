// cw-db's two clients of the bucket, each with its own pool of connections (review-164 F8). The data path's segment
// and snapshot uploads and its restores can keep every connection of theirs busy for seconds; the heartbeat, which
// keeps every lease this replica holds, queued behind them past the lease dropped every database at once.
import { Registry } from 'prom-client';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import type { DatabaseServerConfig } from './config.ts';

/** Connections of the data path's client (the SDK's default, said here: the shipping rounds stay below it). */
export const DATA_SOCKETS = 50;
/** Connections of the leases' client: a heartbeat, a round's lease writes (16 at once) and requests' lease reads. */
const LEASE_SOCKETS = 50;

export interface BucketStores {
  /** Databases' replicas, metadata and usage. */
  readonly data: S3ObjectStore;
  /** Leases and heartbeats (cluster/): never queued behind the data path's transfers. */
  readonly leases: S3ObjectStore;
  destroy(): void;
}

export function bucketStores(config: Pick<DatabaseServerConfig, 's3' | 'bucket'>): BucketStores {
  const open = (maxSockets: number) => new S3ObjectStore({ config: config.s3, bucket: config.bucket, registry: new Registry(), maxSockets });
  const data = open(DATA_SOCKETS);
  const leases = open(LEASE_SOCKETS);
  return {
    data,
    leases,
    destroy: () => {
      data.destroy();
      leases.destroy();
    },
  };
}
