// How long a run's presigned URLs stay valid. The output's PUT comes at the end of the build, so a URL must
// outlive the whole deadline, plus the wait for a pod (a Job's deadline counts from its start) and the upload
// itself. S3 signs for 7 days at most (MAX_PRESIGNED_SECONDS). Each URL is still for one object and one method.
import { MAX_PRESIGNED_SECONDS } from '../../../src/object-store/presigned-urls.ts';
import type { BuildLimits } from './build-runner.ts';

/** For scheduling, pulling an image, and fetching or uploading once the command is done. */
export const URL_MARGIN_SECONDS = 15 * 60;

export function urlLifetimeSeconds(limits: Pick<BuildLimits, 'deadlineSeconds'>): number {
  return Math.min(limits.deadlineSeconds + URL_MARGIN_SECONDS, MAX_PRESIGNED_SECONDS);
}
