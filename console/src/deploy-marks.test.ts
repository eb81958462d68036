import { describe, expect, it } from 'vitest';
import { deployMarks } from './deploy-marks.ts';

describe('deployMarks', () => {
  it('marks each activation, each later weight of its rollout, and an abort', () => {
    const marks = deployMarks([
      { build_id: 'b-2', kind: 'rollback', activated_at: '2026-11-29T14:30:00Z', active: true },
      {
        build_id: 'b-1',
        kind: 'deploy',
        activated_at: '2026-11-29T14:00:00Z',
        by: 'user:ann',
        rollout_steps: [
          { weight: 10, at: '2026-11-29T14:00:00Z' },
          { weight: 50, at: '2026-11-29T14:05:00Z' },
        ],
        aborted_at: '2026-11-29T14:06:00Z',
        active: false,
      },
    ]);
    expect(marks.map((m) => [new Date(m.time).toISOString().slice(11, 16), m.kind, m.label])).toEqual([
      ['14:30', 'rollback', 'Rollback of build b-2'],
      ['14:00', 'deploy', 'Deploy of build b-1 by user:ann'],
      ['14:05', 'rollout', 'Build b-1 at 50 % of traffic'],
      ['14:06', 'abort', 'Rollout of build b-1 aborted'],
    ]);
  });
});
