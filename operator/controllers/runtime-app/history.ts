import { DEPLOYED_BUILD_ANNOTATION, DEPLOYED_BY_ANNOTATION, MAX_HISTORY, type Activation } from '../../../src/apis/v1alpha1/activation.ts';
import type { RuntimeApp, RuntimeAppStatus } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';

/**
 * The deploy history `status` should hold (newest first, at most {@link MAX_HISTORY}): a new entry when
 * spec.activeBuildId is not the latest entry's build, whoever changed it, then the latest entry brought up to
 * date with what `status` (just computed) says: its rollout's weights, its abort, and when it was first served
 * to all traffic. Pure and level-based: computed again from the same app and status, it changes nothing, so
 * a restarted operator records nothing twice. Times are when the operator saw the change (it watches the app).
 */
export function nextHistory(app: RuntimeApp, status: RuntimeAppStatus, now: Date): Activation[] | undefined {
  const before = app.status?.history ?? [];
  const buildId = app.spec.activeBuildId;
  if (!buildId) return before.length > 0 ? before : undefined;
  const at = now.toISOString();
  const latest = before[0]?.buildId === buildId ? before[0] : activation(app, buildId, at, before);
  const older = before[0]?.buildId === buildId ? before.slice(1) : before;
  return [updated(latest, status, at), ...older].slice(0, MAX_HISTORY);
}

/** A new entry for `buildId`: who activated it, when the annotations the API and push to deploy write name this build. */
function activation(app: RuntimeApp, buildId: string, at: string, before: readonly Activation[]): Activation {
  const annotations = app.metadata?.annotations ?? {};
  const named = annotations[DEPLOYED_BUILD_ANNOTATION] === buildId ? annotations[DEPLOYED_BY_ANNOTATION] : undefined;
  const by = named === undefined ? '' : printable(named, 256);
  const commit = by.startsWith('push:') ? printable(by.slice(by.lastIndexOf('@') + 1), 64) : '';
  return {
    buildId,
    activatedAt: at,
    ...(before.some((entry) => entry.buildId === buildId) ? { rollback: true } : {}),
    ...(by ? { by } : {}),
    ...(commit ? { commit } : {}),
  };
}

/**
 * An annotation's text as the status schema takes it: anyone with kubectl writes annotations, and one the
 * schema refuses (a control character, too long) would make every status write of the app fail.
 */
function printable(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- the characters the schema's pattern refuses
  return Array.from(text.replace(/[\x00-\x1F\x7F]/g, ''))
    .slice(0, max)
    .join('');
}

/** The entry with its rollout's progress and its first time served added (never changed once set). */
function updated(entry: Activation, status: RuntimeAppStatus, at: string): Activation {
  const rollout = status.rollout;
  const ours = rollout?.canary?.buildId === entry.buildId && (rollout.phase !== 'Aborted' || entry.abortedAt === undefined);
  let next = entry;
  if (ours && rollout.phase !== 'Aborted' && !entry.servedAt) {
    const steps = entry.steps ?? [];
    if (steps.at(-1)?.weight !== rollout.weight && steps.length < 12) next = { ...next, steps: [...steps, { weight: rollout.weight, at }] };
  }
  if (ours && rollout.phase === 'Aborted' && !entry.servedAt) next = { ...next, abortedAt: at };
  if (!next.servedAt && !next.abortedAt && servedToAll(status, entry.buildId)) next = { ...next, servedAt: at };
  return next;
}

/**
 * Whether every live replica serves `buildId` to all traffic: Deployed (for this generation) with the build,
 * and no rollout holding part of the traffic on another (docs/rollouts.md: a rollout's build counts as served
 * when the rollout succeeds; setting the spec back to the stable build ends it, served).
 */
function servedToAll(status: RuntimeAppStatus, buildId: string): boolean {
  if (findCondition(status.conditions, 'Deployed')?.status !== 'True' || status.servingBuildId !== buildId) return false;
  const rollout = status.rollout;
  return !rollout || rollout.phase === 'Succeeded' || (rollout.phase === 'Aborted' && rollout.stable.buildId === buildId);
}
