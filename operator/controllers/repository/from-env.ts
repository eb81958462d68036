import type { Registry } from 'prom-client';
import { s3ConfigFromEnv } from '../../../src/object-store/s3-env.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';

/**
 * The repositories' bucket for the Repository controller, from the environment: CW_GIT_BUCKET (the bucket
 * cw-git's `store.bucket` names), and the object store settings the other components use
 * (`s3ConfigFromEnv`).
 * Without CW_GIT_BUCKET there is nothing to reconcile against: `disabled` says why. Throws one line naming
 * what is wrong otherwise (never a value of a secret).
 */
export function repositoryStoreFromEnv(env: NodeJS.ProcessEnv, registry: Registry): { store: RepoStore; bucket: string } | { disabled: string } {
  const bucket = env.CW_GIT_BUCKET;
  if (!bucket) return { disabled: 'CW_GIT_BUCKET is not set, so Repository resources are not reconciled (set it to the bucket cw-git serves)' };
  const problems: string[] = [];
  const config = s3ConfigFromEnv(env, problems);
  if (problems.length > 0) throw new Error(problems[0]);
  const objects = new S3ObjectStore({ bucket, registry, config });
  return { store: new RepoStore({ store: objects, registry }), bucket };
}
