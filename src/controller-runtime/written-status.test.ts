import { describe, expect, it } from 'vitest';
import { WrittenStatus } from './written-status.ts';

type Obj = { metadata: { namespace: string; name: string; uid: string }; status?: { n: number } };
const obj = (uid: string, n?: number): Obj => ({ metadata: { namespace: 'p', name: 'a', uid }, ...(n === undefined ? {} : { status: { n } }) });

describe('WrittenStatus', () => {
  it('gives a cached object the status last written for it', () => {
    const written = new WrittenStatus<{ n: number }>();
    expect(written.latest(obj('u1', 1))).toEqual(obj('u1', 1));
    written.remember(obj('u1', 2), { n: 0 });
    expect(written.latest(obj('u1', 1)).status).toEqual({ n: 2 });
  });

  it('keeps what was sent when the answer has no status', () => {
    const written = new WrittenStatus<{ n: number }>();
    written.remember(obj('u1'), { n: 3 });
    expect(written.latest(obj('u1', 1)).status).toEqual({ n: 3 });
  });

  it('ignores what was written for another incarnation of the name, and what was forgotten', () => {
    const written = new WrittenStatus<{ n: number }>();
    written.remember(obj('u1', 2), { n: 0 });
    expect(written.latest(obj('u2', 1)).status).toEqual({ n: 1 });
    written.forget('p/a');
    expect(written.latest(obj('u1', 1)).status).toEqual({ n: 1 });
  });
});
