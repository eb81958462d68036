// RFC 9110 §14 `Range: bytes=…` for one range over a body of known size. Several ranges, another unit or a
// malformed header are ignored (the whole body is sent, as the RFC allows); only a well-formed range past the end
// is unsatisfiable (416).

export type RangeAnswer = { readonly kind: 'full' } | { readonly kind: 'partial'; readonly start: number; readonly end: number } | { readonly kind: 'unsatisfiable' };

/** What to send for `header` over `size` bytes; `end` is inclusive, as in `Content-Range`. */
export function byteRange(header: string | undefined, size: number): RangeAnswer {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // The last n bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
