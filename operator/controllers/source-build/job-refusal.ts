import type { KubeApiError } from '../../../src/kube/index.ts';
import type { Job } from './build-job.ts';

/**
 * Why the apiserver refused a build's Job, in words safe for the build's status: the fields it named (an
 * environment variable by its name) and the kind of fault, never its message, which quotes values (the build's
 * environment may hold secrets, its URLs are signed).
 */
export function jobRefusal(err: KubeApiError, job: Job): string {
  const env = (job.spec?.template?.spec?.containers[0]?.env ?? []) as { name: string }[];
  const fields = err.causes.map((cause) => {
    const variable = /^spec\.template\.spec\.containers\[0\]\.env\[(\d+)\]/.exec(cause.field ?? '')?.[1];
    const what = variable !== undefined && env[Number(variable)] ? `the environment variable ${JSON.stringify(env[Number(variable)]!.name.slice(0, 100))}` : (cause.field ?? 'the Job');
    return cause.reason ? `${what} (${cause.reason})` : what;
  });
  const said = err.code === 413 ? 'too large (the build environment is the part that grows)' : (err.reason ?? 'invalid');
  return `the cluster refused the build's Job: ${said}${fields.length > 0 ? `: ${[...new Set(fields)].join('; ')}` : ''}`;
}
