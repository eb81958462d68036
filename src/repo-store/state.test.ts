import { describe, expect, it } from 'vitest';
import { CorruptObjectError } from './errors.ts';
import type { LogEntry } from './log-entry.ts';
import { applyEntries, EMPTY_STATE, undoEntries } from './state.ts';

const oid = (c: string) => c.repeat(40);
const Z = oid('0');
const pack = (c: string) => ({ sha256: c.repeat(64), size: 1, idxSize: null });

function entry(seq: number, refUpdates: LogEntry['refUpdates'], p: LogEntry['pack'] = null): LogEntry {
  return { repoId: 'r', seq, kind: 'push', at: '', pusher: 'p', requestId: 'q', nonce: `n${seq}`, refUpdates, pack: p };
}

const log = [
  entry(1, [{ ref: 'refs/heads/main', old: Z, new: oid('a') }], pack('1')),
  entry(
    2,
    [
      { ref: 'refs/heads/topic', old: Z, new: oid('b') },
      { ref: 'refs/heads/main', old: oid('a'), new: oid('c') },
    ],
    pack('2'),
  ),
  entry(3, [{ ref: 'refs/heads/topic', old: oid('b'), new: Z }], pack('1')), // the same pack again
  entry(4, [{ ref: 'refs/tags/v1', old: Z, new: oid('c') }]),
];

describe('folding the log', () => {
  it('applies entries in order: creates, updates, deletes, and a pack once', () => {
    const s = applyEntries(EMPTY_STATE, log);
    expect(s.seq).toBe(4);
    expect([...s.refs]).toEqual([
      ['refs/heads/main', oid('c')],
      ['refs/tags/v1', oid('c')],
    ]);
    expect(s.packs.map((p) => [p.sha256[0], p.seq])).toEqual([
      ['1', 1],
      ['2', 2],
    ]);
  });

  it('undoes entries back to every earlier state exactly', () => {
    const states = [EMPTY_STATE];
    for (const e of log) states.push(applyEntries(states.at(-1)!, [e]));
    const head = states[4]!;
    for (let seq = 0; seq <= 4; seq++) {
      expect(undoEntries(head, log.slice(seq).reverse()), `seq ${seq}`).toEqual(states[seq]);
    }
  });

  it('refuses a gap or an old value that does not hold: such a log is corrupt', () => {
    expect(() => applyEntries(EMPTY_STATE, [log[1]!])).toThrow(CorruptObjectError);
    expect(() => applyEntries(EMPTY_STATE, [entry(1, [{ ref: 'refs/heads/main', old: oid('a'), new: oid('b') }])])).toThrow(/does not replay/);
    expect(() => undoEntries(applyEntries(EMPTY_STATE, log), [log[2]!])).toThrow(CorruptObjectError);
  });
});
