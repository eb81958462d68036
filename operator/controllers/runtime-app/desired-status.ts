import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { setCondition, type ConditionUpdate } from '../../../src/conditions/index.ts';

/** Reasons a RuntimeApp's conditions carry (CamelCase, stable: dashboards and alerts key on them). */
export const Reasons = {
  NoBuild: 'NoBuild',
  RuntimeNotConfigured: 'RuntimeNotConfigured',
} as const;

/**
 * What the conditions of `app` should say, given what the controller knows of the runtime. Pure, so the
 * table of cases is tested without a cluster; the reconciler only diffs and writes.
 *
 * Until the runtime engine is wired in, a build can be named but not served: the app then reports that
 * honestly instead of pretending to be Ready.
 */
export function desiredStatus(app: RuntimeApp, now: Date): RuntimeAppStatus {
  const generation = app.metadata?.generation;
  const updates: ConditionUpdate[] = app.spec.activeBuildId
    ? [
        {
          type: 'Deployed',
          status: 'False',
          reason: Reasons.RuntimeNotConfigured,
          message: `Build ${app.spec.activeBuildId} is selected, but no runtime engine is configured to serve it.`,
        },
        { type: 'Ready', status: 'False', reason: Reasons.RuntimeNotConfigured, message: 'The app is not served: no runtime engine is configured.' },
      ]
    : [
        { type: 'Deployed', status: 'False', reason: Reasons.NoBuild, message: 'No build has been deployed yet.' },
        {
          type: 'Ready',
          status: 'False',
          reason: Reasons.NoBuild,
          message: 'No build has been deployed yet: upload one with POST /v1/projects/{projectId}/apps/{appId}/deployments.',
        },
      ];
  let conditions = app.status?.conditions ?? [];
  for (const update of updates) conditions = setCondition(conditions, update, generation, now).conditions;
  return {
    ...app.status,
    conditions,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}
