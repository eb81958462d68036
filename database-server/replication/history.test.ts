import { describe, expect, it } from 'vitest';
import type { FollowsMarker, Generation } from './bucket-layout.ts';
import { tenantHistory } from './history.ts';

/** A generation with snapshots and segments numbered 0..n-1 (ids sort as the real ones do). */
function generation(id: string, epoch: number, snapshots: number[], segments: number): Generation {
  return {
    id,
    epoch,
    snapshots: snapshots.map((seq) => ({ key: `${id}/snap/${seq}`, generation: id, seq, time: seq })),
    segments: Array.from({ length: segments }, (_, seq) => ({ key: `${id}/seg/${seq}`, generation: id, seq, firstTs: seq, lastTs: seq })),
  };
}

const shape = (gs: Generation[]) => gs.map((g) => `${g.id}:${g.snapshots.map((s) => s.seq).join(',')}/${g.segments.length}`);

describe('tenantHistory', () => {
  it('keeps every generation when no owner took over', () => {
    const gs = [generation('a', 0, [0], 3), generation('b', 1, [0, 2], 4)];
    expect(shape(tenantHistory({ generations: gs, markers: [] }))).toEqual(['a:0/3', 'b:0,2/4']);
  });

  it('cuts the generation a successor followed at the segment it restored to, and drops what the old owner wrote after it', () => {
    const gs = [generation('a', 1, [0, 5], 6), generation('a2', 1, [0], 2), generation('b', 2, [0], 1)];
    const markers: FollowsMarker[] = [{ epoch: 2, follows: { generation: 'a', nextSeq: 3 } }];
    // `a` keeps segments 0-2 and only the snapshot holding no more than them; `a2` (epoch 1, later) is a fork.
    expect(shape(tenantHistory({ generations: gs, markers }))).toEqual(['a:0/3', 'b:0/1']);
  });

  it('drops every older epoch when the successor found nothing to restore', () => {
    const gs = [generation('a', 1, [0], 1), generation('b', 2, [0], 0)];
    expect(shape(tenantHistory({ generations: gs, markers: [{ epoch: 2, follows: null }] }))).toEqual(['b:0/0']);
  });

  it('applies a marker whose owner has not written a generation yet', () => {
    const gs = [generation('a', 1, [0], 4), generation('a2', 1, [0], 1)];
    expect(shape(tenantHistory({ generations: gs, markers: [{ epoch: 3, follows: { generation: 'a', nextSeq: 2 } }] }))).toEqual(['a:0/2']);
  });

  it('chains takeovers: each owner cuts its predecessor, generations of its own epoch stay', () => {
    const gs = [generation('a', 1, [0], 5), generation('b', 2, [0], 5), generation('b2', 2, [0], 2), generation('c', 3, [0], 1)];
    const markers: FollowsMarker[] = [
      { epoch: 2, follows: { generation: 'a', nextSeq: 4 } },
      { epoch: 3, follows: { generation: 'b2', nextSeq: 1 } },
    ];
    expect(shape(tenantHistory({ generations: gs, markers }))).toEqual(['a:0/4', 'b:0/5', 'b2:0/1', 'c:0/1']);
  });
});
