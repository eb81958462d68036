// Proactive content negotiation on `Accept` (RFC 9110 §12.5.1), for the routes that offer more than JSON (the
// blob's raw bytes). Each offer gets the quality of the most specific media range matching it (`text/plain`
// over `text/*` over `*/*`); the best quality above 0 wins, and a tie goes to the earlier offer, so the server's
// default (listed first) wins whenever the client states no preference (`*/*`, as curl and fetch send).

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The media ranges of an `Accept` value; malformed ones are skipped, as RFC 9110 lets a recipient do. */
export function parseAccept(value: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of value.split(',')) {
    const [media = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const [type = '', subtype = '', ...extra] = media.split('/');
    if (extra.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    for (const param of params) {
      const [name, raw] = param.split('=').map((s) => s.trim());
      if (name !== 'q') continue;
      q = raw !== undefined && /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(raw) ? Number(raw) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality `ranges` give `offer` (`type/subtype`): that of the most specific matching range, else 0. */
export function quality(ranges: readonly MediaRange[], offer: string): number {
  const [type, subtype] = offer.toLowerCase().split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity < 0 || (best && best.specificity >= specificity)) continue;
    best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/**
 * The offer (`type/subtype`, the default first) to answer `accept` with, or undefined when the client accepts
 * none of them (a 406). An absent or empty `Accept` accepts anything: the default.
 */
export function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offers[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offers[0];
  let chosen: { offer: string; q: number } | undefined;
  for (const offer of offers) {
    const q = quality(ranges, offer);
    if (q > 0 && (!chosen || q > chosen.q)) chosen = { offer, q };
  }
  return chosen?.offer;
}
