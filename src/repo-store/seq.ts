// WAL sequence numbers: integers in memory, decimal strings in JSON (the uint64 convention of the event
// payloads), 20-digit zero-padded in object keys so that key order is seq order.

/** Digits of the largest uint64, so every seq a key can ever need has the same width. */
export const SEQ_KEY_WIDTH = 20;

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Whether `n` can be a seq: a non-negative safe integer (0 is the head of a pristine repository). */
export function isSeq(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** The JSON form of a seq: `42` → `"42"`. */
export function seqToString(seq: number): string {
  if (!isSeq(seq)) throw new RangeError(`not a seq: ${String(seq)}`);
  return String(seq);
}

/** The seq in a decimal string, or `undefined` unless it is canonical (no sign, no leading zero) and safe. */
export function parseSeq(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The key form of a seq: `42` → `"00000000000000000042"`. */
export function seqKey(seq: number): string {
  return seqToString(seq).padStart(SEQ_KEY_WIDTH, '0');
}

/** The seq in a key segment written by `seqKey`, or `undefined`. */
export function parseSeqKey(segment: string): number | undefined {
  if (segment.length !== SEQ_KEY_WIDTH || !/^[0-9]+$/.test(segment)) return undefined;
  const n = Number(segment);
  return Number.isSafeInteger(n) ? n : undefined;
}
