// TXT values between their text and the zone-file presentation DNS providers use: one or more quoted
// <character-string>s of at most 255 bytes each (RFC 1035 §3.3.14, §5.1). Pure.

/** Longest <character-string> on the wire. */
const CHUNK = 255;

/** How `\DDD` escapes are read: RFC 1035 zone files use decimal, Route 53 documents octal. */
export type EscapeBase = 'decimal' | 'octal';

/**
 * The presentation of `text` (printable ASCII, see record-values.ts): split into 255-character strings,
 * each quoted, with `"` and `\` escaped by a backslash. No numeric escapes are written, so the result means
 * the same to readers of either escape base. `hello` → `"hello"`.
 */
export function txtToPresentation(text: string): string {
  const chunks: string[] = [];
  for (let i = 0; i < text.length || chunks.length === 0; i += CHUNK) chunks.push(text.slice(i, i + CHUNK));
  return chunks.map((chunk) => `"${chunk.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(' ');
}

/**
 * Parses a value made only of quoted character-strings separated by white space (`"a" "b"`) into its
 * strings, or answers `undefined` when the value is not of that form (unquoted text, a stray quote).
 */
export function parseCharacterStrings(value: string, base: EscapeBase = 'decimal'): string[] | undefined {
  const strings: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < value.length && (value[i] === ' ' || value[i] === '\t')) i++;
  };
  skipSpace();
  if (i >= value.length) return undefined;
  while (i < value.length) {
    if (value[i] !== '"') return undefined;
    i++;
    const bytes: number[] = [];
    let closed = false;
    while (i < value.length) {
      const c = value[i] ?? '';
      if (c === '"') {
        closed = true;
        i++;
        break;
      }
      if (c === '\\') {
        const digits = value.slice(i + 1, i + 4);
        if (/^[0-9]{3}$/.test(digits)) {
          const code = Number.parseInt(digits, base === 'octal' ? 8 : 10);
          if (Number.isNaN(code) || code > 255 || (base === 'octal' && /[89]/.test(digits))) return undefined;
          bytes.push(code);
          i += 4;
          continue;
        }
        const next = value.codePointAt(i + 1);
        if (next === undefined) return undefined;
        const escaped = String.fromCodePoint(next);
        bytes.push(...Buffer.from(escaped, 'utf8'));
        i += 1 + escaped.length;
        continue;
      }
      const char = String.fromCodePoint(value.codePointAt(i) ?? 0);
      bytes.push(...Buffer.from(char, 'utf8'));
      i += char.length;
    }
    if (!closed) return undefined;
    strings.push(Buffer.from(bytes).toString('utf8'));
    const before = i;
    skipSpace();
    if (i < value.length && i === before) return undefined; // `"a""b"` needs a space between strings
  }
  return strings;
}

/** The text of a TXT value as a provider returns it: its strings joined, or the value itself when unquoted. */
export function txtFromPresentation(value: string, base: EscapeBase): string {
  const strings = parseCharacterStrings(value, base);
  return strings === undefined ? value : strings.join('');
}
