/**
 * How deep Hrana's JSON may nest. Its deepest messages (a batch step's condition inside a WebSocket request) nest
 * under 10 levels; V8's JSON.parse takes seconds over a 10 MiB body nested millions deep, on the main event loop every
 * tenant shares, and its serializer of a shard call then fails past its stack.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether no array or object in `text` is nested more than `maxDepth` deep, in one pass over it before it is parsed
 * (brackets inside strings, escaped quotes included, are not counted). Says nothing of whether it is valid JSON.
 */
export function jsonDepthWithin(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i + 1);
      if (i < 0) return true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return false;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return true;
}

/** Where the string whose content starts at `from` ends: its first quote not escaped by a backslash (-1: none). */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}
