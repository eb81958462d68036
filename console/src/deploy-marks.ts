// The marks the app's charts draw on their time axis, from its deploy history (GET …/deployments): each
// activation (a deploy or a rollback), each weight its rollout went through, and an abort.
import type { paths } from './api/schema.ts';
import type { Mark } from './charts/time-chart.tsx';

/** One activation of a build, as GET …/deployments answers it. */
export type DeploymentView = paths['/v1/projects/{projectId}/apps/{appId}/deployments']['get']['responses'][200]['content']['application/json']['deployments'][number];

export function deployMarks(deployments: readonly DeploymentView[]): Mark[] {
  return deployments.flatMap((d) => [
    { time: Date.parse(d.activated_at), kind: d.kind, label: `${d.kind === 'rollback' ? 'Rollback' : 'Deploy'} of build ${d.build_id}${d.by ? ` by ${d.by}` : ''}` },
    // The first weight is reached as the build is activated: the activation marks it.
    ...(d.rollout_steps ?? []).slice(1).map((s) => ({ time: Date.parse(s.at), kind: 'rollout' as const, label: `Build ${d.build_id} at ${s.weight} % of traffic` })),
    ...(d.aborted_at ? [{ time: Date.parse(d.aborted_at), kind: 'abort' as const, label: `Rollout of build ${d.build_id} aborted` }] : []),
  ]);
}
