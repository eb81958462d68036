import type { S3Config } from '../../src/object-store/s3-config.ts';

/**
 * The loopback address of a local cw-db's SQL listener, its own (all of 127/8 is loopback on Linux): the runtime
 * lets apps reach it (CW_RUNTIME_DATABASE_URL), and workerd allows addresses, not ports, so nothing else of the
 * platform may listen there. The admin port and everything else stay on 127.0.0.1.
 */
export const LOCAL_DB_SQL_HOST = '127.0.0.2';

/** Where a local cw-db listens and keeps its data: loopback ports, a data directory, a bucket on the given store. */
export interface LocalCwDb {
  port: number;
  adminPort: number;
  adminToken: string;
  dataDir: string;
  bucket: string;
  s3: S3Config;
}

/**
 * The environment of a cw-db run on this machine (tests, `make dev`, `make bench-db`), on loopback only (its SQL port on {@link LOCAL_DB_SQL_HOST}); the caller
 * adds whatever else it sets (a log level, a flush interval).
 */
export function cwDbEnv(db: LocalCwDb): Record<string, string> {
  return {
    CW_DB_HOST: LOCAL_DB_SQL_HOST,
    CW_DB_PORT: String(db.port),
    CW_DB_ADMIN_HOST: '127.0.0.1',
    CW_DB_ADMIN_PORT: String(db.adminPort),
    CW_DB_ADMIN_TOKEN: db.adminToken,
    CW_DB_DATA_DIR: db.dataDir,
    CW_DB_BUCKET: db.bucket,
    CW_S3_ENDPOINT: db.s3.endpoint ?? '',
    CW_S3_REGION: db.s3.region,
    CW_S3_ACCESS_KEY_ID: db.s3.credentials?.accessKeyId ?? '',
    CW_S3_SECRET_ACCESS_KEY: db.s3.credentials?.secretAccessKey ?? '',
  };
}
