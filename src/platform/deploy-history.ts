import type { Activation } from '../apis/v1alpha1/activation.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';

/** One activation of a build as the API shows it (`GET …/apps/{appId}/deployments`). */
export interface DeploymentView {
  build_id: string;
  kind: 'deploy' | 'rollback';
  activated_at: string;
  served_at?: string;
  seconds_to_serve?: number;
  by?: string;
  commit?: string;
  rollout_steps?: { weight: number; at: string }[];
  aborted_at?: string;
  active: boolean;
}

/** The app's deploy history (status.history, written by the operator), newest first. */
export function deployHistoryView(app: RuntimeApp): DeploymentView[] {
  return (app.status?.history ?? []).map((entry, i) => view(entry, i === 0 && entry.buildId === app.spec.activeBuildId));
}

function view(entry: Activation, active: boolean): DeploymentView {
  const served = entry.servedAt ? Date.parse(entry.servedAt) - Date.parse(entry.activatedAt) : undefined;
  return {
    build_id: entry.buildId,
    kind: entry.rollback ? 'rollback' : 'deploy',
    activated_at: entry.activatedAt,
    ...(entry.servedAt ? { served_at: entry.servedAt } : {}),
    ...(served !== undefined && served >= 0 ? { seconds_to_serve: Math.round(served / 100) / 10 } : {}),
    ...(entry.by ? { by: entry.by } : {}),
    ...(entry.commit ? { commit: entry.commit } : {}),
    ...(entry.steps?.length ? { rollout_steps: entry.steps.map((s) => ({ weight: s.weight, at: s.at })) } : {}),
    ...(entry.abortedAt ? { aborted_at: entry.abortedAt } : {}),
    active,
  };
}

/** A marker on a metrics chart's time axis. */
export interface HistoryEvent {
  time: string;
  kind: 'deploy' | 'rollback' | 'rollout';
  build_id: string;
  detail?: string;
}

/**
 * The deploy history as markers between `since` and `until` (ms), oldest first: each activation, each rollout step
 * (its weight) and each abort.
 */
export function historyEvents(history: readonly DeploymentView[], since: number, until: number): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  for (const d of history) {
    events.push({ time: d.activated_at, kind: d.kind, build_id: d.build_id, detail: d.by ? `by ${d.by}` : d.kind });
    for (const step of d.rollout_steps ?? []) events.push({ time: step.at, kind: 'rollout', build_id: d.build_id, detail: `${step.weight} % of traffic` });
    if (d.aborted_at) events.push({ time: d.aborted_at, kind: 'rollout', build_id: d.build_id, detail: 'aborted' });
  }
  return events.filter((e) => Date.parse(e.time) >= since && Date.parse(e.time) <= until).sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}
