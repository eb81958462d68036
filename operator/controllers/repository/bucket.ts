import type { Registry } from 'prom-client';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import type { S3Config } from '../../../src/object-store/s3-config.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';

/** The repositories' bucket (CW_GIT_BUCKET: the one cw-git's `store.bucket` names) and how to reach it (CW_S3_*). */
export interface GitBucket {
  readonly bucket: string;
  readonly s3: S3Config;
}

/** The repositories' bucket as the controller reads it. */
export interface RepositoryBucket {
  /** Through the write-ahead log: heads, creation, deletion. */
  readonly repos: RepoStore;
  /** The same bucket's objects, for what maintenance writes there (the overview, src/repo-maintenance). */
  readonly objects: ObjectStore;
}

/**
 * The Repository controller's store on the repositories' bucket. Without a bucket there is nothing to
 * reconcile against: `disabled` says why.
 */
export function repositoryStore(git: GitBucket | undefined, registry: Registry): { store: RepositoryBucket; bucket: string } | { disabled: string } {
  if (!git) return { disabled: 'CW_GIT_BUCKET is not set, so Repository resources are not reconciled (set it to the bucket cw-git serves)' };
  const objects = new S3ObjectStore({ bucket: git.bucket, registry, config: git.s3 });
  return { store: { repos: new RepoStore({ store: objects, registry }), objects }, bucket: git.bucket };
}
