// Whether a Job found under a run's name is that run's. The builds namespace is shared by every project, and a
// Job's name can be shortened with a hash (build-job.ts jobName): a Job is followed or deleted only when its
// annotations name the same SourceBuild and the same run, never on its name alone.
import { BUILD_ANNOTATION, RUN_ANNOTATION, type Job } from './build-job.ts';

/** Why `job` is not the run's (a sentence for the build's status), or `undefined` when it is. */
export function foreignJob(job: Job, run: { id: string; namespace: string; build: string }): string | undefined {
  const annotations = job.metadata?.annotations ?? {};
  const build = `${run.namespace}/${run.build}`;
  if (annotations[BUILD_ANNOTATION] === build && annotations[RUN_ANNOTATION] === run.id) return undefined;
  // The other Job's annotations are not told: they may name another project.
  return `the build Job ${job.metadata?.name ?? ''} is another build's, not run ${run.id} of ${build}: it was left alone`;
}

/** Whether `job` is the Job of run `id` (for stop, which knows only the id). */
export function isRunJob(job: Job, id: string): boolean {
  return job.metadata?.annotations?.[RUN_ANNOTATION] === id;
}
