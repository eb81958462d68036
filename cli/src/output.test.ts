// Numbers for people: byte counts and how long ago something happened.
import { describe, expect, it } from 'vitest';
import { ago, formatBytes, terminalSafe } from './output.ts';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.0 kB'],
    [1234, '1.2 kB'],
    [9_949, '9.9 kB'],
    [12_345, '12 kB'],
    [999_499, '999 kB'],
    [999_500, '1.0 MB'],
    [9_960, '10 kB'],
    [1_000_000, '1.0 MB'],
    [12_000_000, '12 MB'],
    [3_500_000_000, '3.5 GB'],
    [2e15, '2000 TB'],
  ])('%d → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('ago', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it.each([
    ['2026-03-01T12:00:00Z', '0s ago'],
    ['2026-03-01T11:59:01Z', '59s ago'],
    ['2026-03-01T11:59:00Z', '1m ago'],
    ['2026-03-01T11:00:01Z', '59m ago'],
    ['2026-03-01T11:00:00Z', '1h ago'],
    ['2026-02-28T12:00:01Z', '23h ago'],
    ['2026-02-28T12:00:00Z', '1d ago'],
    ['2026-01-30T12:00:00Z', '30d ago'],
    ['2026-03-01T12:00:05Z', '0s ago'],
  ])('%s → %s', (iso, text) => {
    expect(ago(iso, now)).toBe(text);
  });

  it('shows - for no time and an unparsable time as it is', () => {
    expect(ago(null, now)).toBe('-');
    expect(ago(undefined, now)).toBe('-');
    expect(ago('', now)).toBe('-');
    expect(ago('yesterday-ish', now)).toBe('yesterday-ish');
  });
});

describe('terminalSafe', () => {
  it('shows control characters and bidirectional overrides as text, and indents the lines after the first', () => {
    const hostile = '\u001b]0;pwned\u0007\u001b[2K\rFAKE\u009b \u202eevil\nGET /admin 200\ttab';
    expect(terminalSafe(hostile, '    ')).toBe('\\x1b]0;pwned\\x07\\x1b[2K\\x0dFAKE\\x9b \\u{202e}evil\n    GET /admin 200\ttab');
  });

  it('leaves ordinary text as it is', () => {
    expect(terminalSafe('héllo wörld — ✓ 日本', '  ')).toBe('héllo wörld — ✓ 日本');
  });
});
