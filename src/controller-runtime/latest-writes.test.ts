import { describe, expect, it } from 'vitest';
import { LatestWrites } from './latest-writes.ts';

type Obj = { metadata: { namespace: string; name: string; uid: string; resourceVersion: string }; status: { n: number } };
const obj = (uid: string, resourceVersion: number, n: number): Obj => ({ metadata: { namespace: 'p', name: 'a', uid, resourceVersion: String(resourceVersion) }, status: { n } });

describe('LatestWrites', () => {
  it('answers the last write while the cache holds an older version, then the cache', () => {
    const writes = new LatestWrites<Obj>();
    expect(writes.latest(obj('u1', 10, 1))).toEqual(obj('u1', 10, 1));
    writes.remember(obj('u1', 12, 2));
    expect(writes.latest(obj('u1', 10, 1))).toEqual(obj('u1', 12, 2));
    // The cache caught up (and someone wrote after us): the cache wins, and the write is forgotten.
    expect(writes.latest(obj('u1', 13, 3))).toEqual(obj('u1', 13, 3));
    expect(writes.latest(obj('u1', 10, 1))).toEqual(obj('u1', 10, 1));
  });

  it('ignores a write of another incarnation of the name, and one forgotten', () => {
    const writes = new LatestWrites<Obj>();
    writes.remember(obj('u1', 12, 2));
    expect(writes.latest(obj('u2', 11, 1))).toEqual(obj('u2', 11, 1));
    writes.remember(obj('u1', 12, 2));
    writes.forget('p/a');
    expect(writes.latest(obj('u1', 10, 1))).toEqual(obj('u1', 10, 1));
  });
});
