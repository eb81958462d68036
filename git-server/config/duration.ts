// Durations as operators write them in configuration: `500ms`, `20s`, `5m`, `1h30m`, `0`.
import { FieldError } from './config-error.ts';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** The longest duration a timer can hold (Node's `setTimeout` overflows past 2^31 − 1 ms, about 24.8 days). */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * Parses a duration into whole milliseconds: one or more `<number><unit>` parts with units `ms`, `s`, `m`,
 * `h`, `d` (`1h30m`), or a bare `0`. Throws `FieldError` for anything else, and for values a timer cannot hold.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < trimmed.length) {
    const at = PART.lastIndex;
    const match = PART.exec(trimmed);
    if (!match || match.index !== at) throw new FieldError(`"${text}" is not a duration (examples: 500ms, 20s, 5m, 1h30m)`);
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  if (trimmed === '') throw new FieldError('an empty string is not a duration (examples: 500ms, 20s, 5m, 1h30m)');
  const ms = Math.round(total);
  if (ms > MAX_DURATION_MS) throw new FieldError(`"${text}" is longer than the longest supported duration (24d)`);
  return ms;
}
