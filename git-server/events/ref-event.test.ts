import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/repo-store/log-entry.ts';
import { encodeBatch, refEventsOf, refTypeOf } from './ref-event.ts';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const T = 'c'.repeat(40);

function entry(refUpdates: LogEntry['refUpdates'], over: Partial<LogEntry> = {}): LogEntry {
  return { repoId: 'r', seq: 42, kind: 'push', at: '2030-01-02T03:04:05.678Z', pusher: 'ada', requestId: 'req-1', nonce: 'n', refUpdates, pack: null, ...over };
}

describe('refEventsOf', () => {
  it('builds one event per ref update, in the entry’s order, field for field as the spec’s table', () => {
    const events = refEventsOf(
      'acme/site',
      entry([
        { ref: 'refs/heads/main', old: A, new: B },
        { ref: 'refs/tags/v1', old: Z, new: T },
        { ref: 'refs/heads/old', old: A, new: Z },
      ]),
    );
    expect(events).toEqual([
      {
        action: 'update',
        ref_type: 'branch',
        ref_name: 'refs/heads/main',
        old: A,
        new: B,
        pusher: 'ada',
        correlation_id: 'req-1',
        repo: 'acme/site',
        _service: { schema_version: 1, seq: '42', entry_kind: 'push', request_id: 'req-1' },
      },
      expect.objectContaining({ action: 'create', ref_type: 'tag', ref_name: 'refs/tags/v1', old: Z, new: T }),
      expect.objectContaining({ action: 'delete', ref_type: 'branch', ref_name: 'refs/heads/old', old: A, new: Z }),
    ]);
    // Keys in the table's order, seq a JSON string.
    expect(Object.keys(events[0]!)).toEqual(['action', 'ref_type', 'ref_name', 'old', 'new', 'pusher', 'correlation_id', 'repo', '_service']);
    expect(encodeBatch(events).toString()).toContain('"seq":"42"');
  });

  it('emits nothing for an update whose old equals its new', () => {
    expect(refEventsOf('acme/site', entry([{ ref: 'refs/heads/main', old: A, new: A }]))).toEqual([]);
  });

  it('keeps the entry kind, the request id as correlation id, and full-width zero oids for sha256 repositories', () => {
    const long = 'd'.repeat(64);
    const [event] = refEventsOf('acme/site', entry([{ ref: 'refs/notes/x', old: '0'.repeat(64), new: long }], { kind: 'ref_update', requestId: 'x-req', seq: 9007199254740991 }));
    expect(event).toMatchObject({ action: 'create', ref_type: '', old: '0'.repeat(64), correlation_id: 'x-req', _service: { entry_kind: 'ref_update', request_id: 'x-req', seq: '9007199254740991' } });
  });

  it('tells branches, tags and other refs apart by prefix', () => {
    expect([refTypeOf('refs/heads/a/b'), refTypeOf('refs/tags/v1'), refTypeOf('refs/notes/commits'), refTypeOf('refs/headsx')]).toEqual(['branch', 'tag', '', '']);
  });
});
