import { describe, expect, it } from 'vitest';
import { historyEvents, type DeploymentView } from './deploy-history.ts';

describe('historyEvents', () => {
  const history: DeploymentView[] = [
    { build_id: 'b3', kind: 'rollback', activated_at: '2026-11-29T12:30:00Z', by: 'user:u1', active: true },
    {
      build_id: 'b2',
      kind: 'deploy',
      activated_at: '2026-11-29T12:10:00Z',
      rollout_steps: [
        { weight: 10, at: '2026-11-29T12:10:05Z' },
        { weight: 50, at: '2026-11-29T12:15:00Z' },
      ],
      aborted_at: '2026-11-29T12:20:00Z',
      active: false,
    },
    { build_id: 'b1', kind: 'deploy', activated_at: '2026-11-28T09:00:00Z', active: false },
  ];
  const at = (iso: string) => Date.parse(iso);

  it('marks activations, rollout steps and aborts in the span, oldest first', () => {
    expect(historyEvents(history, at('2026-11-29T12:00:00Z'), at('2026-11-29T13:00:00Z'))).toEqual([
      { time: '2026-11-29T12:10:00Z', kind: 'deploy', build_id: 'b2', detail: 'deploy' },
      { time: '2026-11-29T12:10:05Z', kind: 'rollout', build_id: 'b2', detail: '10 % of traffic' },
      { time: '2026-11-29T12:15:00Z', kind: 'rollout', build_id: 'b2', detail: '50 % of traffic' },
      { time: '2026-11-29T12:20:00Z', kind: 'rollout', build_id: 'b2', detail: 'aborted' },
      { time: '2026-11-29T12:30:00Z', kind: 'rollback', build_id: 'b3', detail: 'by user:u1' },
    ]);
  });

  it('leaves out what is outside the span', () => {
    expect(historyEvents(history, at('2026-11-29T12:16:00Z'), at('2026-11-29T12:25:00Z')).map((e) => e.detail)).toEqual(['aborted']);
  });
});
