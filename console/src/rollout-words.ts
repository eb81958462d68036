// The rollout policy's steps as a person types them (the CLI's `--steps 10:30s,50:manual,100`), and a rollout's
// state in words.
import type { paths } from './api/schema.ts';

export type RolloutView = paths['/v1/projects/{projectId}/apps/{appId}/rollout']['get']['responses']['200']['content']['application/json']['rollout'];
export type RolloutBody = paths['/v1/projects/{projectId}/apps/{appId}/rollout']['put']['requestBody']['content']['application/json'];
export type RolloutStep = RolloutBody['steps'][number];

/** `10:30s, 50:manual, 100` as steps; the API checks the weights and pauses and names a bad one. */
export function parseSteps(text: string): RolloutStep[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => {
      const [weight = '', pause] = item.split(':');
      return { weight: /^\d+$/.test(weight) ? Number(weight) : Number.NaN, ...(pause === undefined ? {} : { pause }) };
    });
}

export function stepsText(steps: readonly RolloutStep[]): string {
  return steps.map((s) => (s.pause ? `${s.weight}:${s.pause}` : String(s.weight))).join(', ');
}

/** The steps as a sentence: `10 % for 30s → 50 % until promoted → 100 %`. */
export function stepsLine(steps: readonly RolloutStep[]): string {
  return steps.map((s) => `${s.weight} %${s.pause === 'manual' ? ' until promoted' : s.pause ? ` for ${s.pause}` : ''}`).join(' → ');
}

export const PHASES: Record<string, string> = {
  Progressing: 'The new build takes more traffic step by step.',
  Paused: 'Waiting: for a pause to end, or for a promote.',
  Succeeded: 'The new build serves all traffic.',
  Aborted: 'All traffic went back to the stable build.',
};

/** Phases in which the rollout can change by itself: the page reads it again while in one. */
export function isUnderWay(phase: string | undefined): boolean {
  return phase === 'Progressing' || phase === 'Paused';
}
