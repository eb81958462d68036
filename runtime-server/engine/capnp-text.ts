// Cap'n Proto text-format literals, for generated workerd configs. Only what the generator needs.

/**
 * A `Text` literal: double-quoted, with `"` and `\` escaped and control characters as `\n`, `\r`, `\t`
 * or `\xNN`. Everything else, non-ASCII included, is written as UTF-8, which capnp reads as is.
 */
export function capnpString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A `List(Text)` literal. */
export function capnpStringList(values: readonly string[]): string {
  return `[${values.map(capnpString).join(', ')}]`;
}
