import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kube/types.ts';
import { byAge, mustGiveWay } from './domain-store.ts';

const object = (uid: string, name: string, created: string): KubeObject => ({ metadata: { uid, name, creationTimestamp: created } });

describe('mustGiveWay', () => {
  const mine = object('u-1', 'example-com-000000', '2026-01-01T00:00:05Z');

  it('stands alone, and before later rivals', () => {
    expect(mustGiveWay(mine, [mine])).toBe(false);
    expect(mustGiveWay(mine, [mine, object('u-2', 'example-com-aaaaaa', '2026-01-01T00:00:06Z')])).toBe(false);
  });

  it('gives way to an older rival', () => {
    expect(mustGiveWay(mine, [object('u-2', 'example-com-ffffff', '2026-01-01T00:00:04Z'), mine])).toBe(true);
  });

  it('gives way to a rival of the same second even when its own name would win the tie', () => {
    const rival = object('u-2', 'example-com-ffffff', '2026-01-01T00:00:05Z');
    expect([rival, mine].sort(byAge)[0]).toBe(mine); // the zone sync and the controller would keep mine…
    expect(mustGiveWay(mine, [mine, rival])).toBe(true); // …but the rival's writer may have answered 201 already
    expect(mustGiveWay(rival, [mine, rival])).toBe(true); // and it gives way too, seeing mine: neither stands
  });
});
