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

/** A result column as the engine answers it (its name, its declared type). */
export interface AnswerColumn {
  name: string;
  decltype: string | null;
}

// The fixed part of a column's Hrana JSON, `{"name":"","decltype":""}` and the comma after it.
const COLUMN_OVERHEAD = 32;

/**
 * The longest column name (and declared type) a result carries, in UTF-16 code units; longer ones are cut to this.
 * SQLite names a column after its alias or its expression's text, which may be as long as the statement (1 MiB), and
 * a stored statement run by many batch steps answered that name once a step: 180 MB for a 0.9 MB request (review).
 */
export const MAX_COLUMN_NAME_CHARS = 4096;

/** `text` cut to `max` UTF-16 code units, never through a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** `column` with its name and declared type cut to MAX_COLUMN_NAME_CHARS. */
export function boundedColumn(column: { name: string; type: string | null }): AnswerColumn {
  return { name: cutText(column.name, MAX_COLUMN_NAME_CHARS), decltype: column.type === null ? null : cutText(column.type, MAX_COLUMN_NAME_CHARS) };
}

/** About how many bytes `columns` take in a Hrana result (`cols`), charged to the answer before its rows. */
export function columnsBytes(columns: readonly AnswerColumn[]): number {
  let bytes = 0;
  for (const { name, decltype } of columns) bytes += COLUMN_OVERHEAD + Buffer.byteLength(name) + (decltype === null ? 0 : Buffer.byteLength(decltype));
  return bytes;
}
