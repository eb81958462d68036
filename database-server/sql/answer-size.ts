import type { SqlValue } from './sql-value.ts';

// The fixed part of a value's Hrana JSON, e.g. `{"type":"integer","value":""}` and the comma after it.
const VALUE_OVERHEAD = 32;

/**
 * About how many bytes `value` takes in a Hrana result (JSON: integers as decimal strings, blobs as base64), so the
 * answer's size is bounded before it is encoded. Escaped characters in text are counted once: an estimate, not a
 * promise, but never far below the truth for the values that make answers large.
 */
export function answerBytes(value: SqlValue): number {
  if (value === null) return VALUE_OVERHEAD;
  if (typeof value === 'bigint') return VALUE_OVERHEAD + 20;
  if (typeof value === 'number') return VALUE_OVERHEAD + 24;
  if (typeof value === 'string') return VALUE_OVERHEAD + Buffer.byteLength(value);
  return VALUE_OVERHEAD + Math.ceil(value.byteLength / 3) * 4;
}
