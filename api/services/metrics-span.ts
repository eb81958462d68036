import { BadRequestError } from '../../src/errors.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The window each runtime replica keeps (`runtime-server/metrics-window`): no read reaches further back. */
export const MAX_SPAN_MS = 24 * HOUR;
export const STEPS: Readonly<Record<string, number>> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR };
/** A default step gives at most this many points. */
const MAX_DEFAULT_POINTS = 120;

export interface MetricsSpan {
  /** The first step's start (a multiple of the step), ms. */
  readonly since: number;
  readonly until: number;
  readonly stepMs: number;
}

/**
 * What `since` and `step` of a metrics read mean: `since` a duration back from `now` (`90s` is not one: whole
 * minutes or hours, `15m`, `1h`, up to `24h`) or an RFC 3339 time within the last 24 h, by default `1h`; `step`
 * one of `STEPS`, by default the smallest giving at most 120 points. The series starts at the step boundary at
 * or before `since`. Throws `BadRequestError` naming the parameter.
 */
export function metricsSpan(query: { since?: string | undefined; step?: string | undefined }, now: number): MetricsSpan {
  const from = sinceOf(query.since ?? '1h', now);
  const span = now - from;
  let stepMs: number;
  if (query.step === undefined) {
    stepMs = Object.values(STEPS).find((ms) => Math.ceil(span / ms) <= MAX_DEFAULT_POINTS) ?? HOUR;
  } else {
    const step = STEPS[query.step];
    if (step === undefined) throw new BadRequestError(`step must be one of ${Object.keys(STEPS).join(', ')}.`);
    stepMs = step;
  }
  return { since: Math.floor(from / stepMs) * stepMs, until: now, stepMs };
}

function sinceOf(value: string, now: number): number {
  const duration = /^([1-9][0-9]{0,4})(m|h)$/.exec(value);
  if (duration) {
    const ms = Number(duration[1]) * (duration[2] === 'h' ? HOUR : MINUTE);
    if (ms > MAX_SPAN_MS) throw new BadRequestError('since reaches back at most 24h: the runtime replicas keep a day of minutes.');
    return now - ms;
  }
  // RFC 3339: a date, `T`, a time and a zone.
  if (/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value)) {
    const at = Date.parse(value);
    if (Number.isNaN(at)) throw new BadRequestError('since is not a valid time.');
    if (at > now) throw new BadRequestError('since is in the future.');
    if (now - at > MAX_SPAN_MS) throw new BadRequestError('since reaches back at most 24h: the runtime replicas keep a day of minutes.');
    return at;
  }
  throw new BadRequestError('since must be a duration such as 15m, 1h or 24h, or an RFC 3339 time within the last 24 hours.');
}
