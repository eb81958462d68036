import { describe, expect, it } from 'vitest';
import { decodeStatus, emptyStatus, encodeStatus, type MaintenanceStatus } from './status.ts';

const PACK = 'f'.repeat(64);

describe('maintenance status codec', () => {
  it('round-trips retired packs, naming a copy only for a pack under a copy key', () => {
    const status: MaintenanceStatus = {
      ...emptyStatus('id-1'),
      retiredPacks: [
        { sha256: PACK, at: '2030-01-01T00:00:00.000Z' },
        { sha256: PACK, copy: '0123456789abcdef', at: '2030-01-01T00:00:01.000Z' },
      ],
    };
    const encoded = encodeStatus(status);
    expect(JSON.parse(Buffer.from(encoded).toString()).retiredPacks).toEqual([
      { sha256: PACK, at: '2030-01-01T00:00:00.000Z' },
      { sha256: PACK, copy: '0123456789abcdef', at: '2030-01-01T00:00:01.000Z' },
    ]);
    expect(decodeStatus('s', encoded)).toEqual(status);
    // Schema 2 when a copy is named, which builds from before copies refuse rather than rewrite without it.
    expect([JSON.parse(Buffer.from(encoded).toString()).schema, JSON.parse(Buffer.from(encodeStatus(emptyStatus('id-1'))).toString()).schema]).toEqual([2, 1]);
    const bad = encodeStatus({ ...status, retiredPacks: [{ sha256: PACK, copy: '../x', at: '2030-01-01T00:00:00.000Z' }] });
    expect(() => decodeStatus('s', bad)).toThrow(/retiredPacks\[0\].copy/);
  });
});
