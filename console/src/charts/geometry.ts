// The arithmetic of the console's charts, kept apart from the SVG so it is tested on its own: scales from
// time and value to the drawing, round numbers for the value axis, ticks on the time axis, and lines that
// break where a step has no value (no requests: no error ratio, no percentile).

/** Where a chart draws: its viewBox size, the margins its axis labels use, and what its axes span. */
export interface Plot {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly since: number;
  readonly until: number;
  readonly yMax: number;
}

export function xOf(plot: Plot, time: number): number {
  const span = Math.max(1, plot.until - plot.since);
  return plot.left + ((time - plot.since) / span) * (plot.width - plot.left - plot.right);
}

export function yOf(plot: Plot, value: number): number {
  const inner = plot.height - plot.top - plot.bottom;
  return plot.top + inner - (Math.min(value, plot.yMax) / plot.yMax) * inner;
}

/** The smallest of 1, 2 or 5 times a power of ten at least `max` (1 for nothing), so the axis reads in round numbers. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max * (1 - 1e-9)) return step * power;
  return 10 * power;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Times on the time axis: every 15 minutes for an hour or two, every hour up to six, every four hours past, on round times. */
export function timeTicks(since: number, until: number): number[] {
  const span = until - since;
  const step = span <= 2 * HOUR ? 15 * MINUTE : span <= 6 * HOUR ? HOUR : 4 * HOUR;
  const ticks: number[] = [];
  for (let t = Math.ceil(since / step) * step; t <= until; t += step) ticks.push(t);
  return ticks;
}

/**
 * An SVG path through the points that have a value, in order of time; a point without one (null) ends the
 * line, so an hour without traffic is a gap, not a slope drawn across it. A lone point draws no line:
 * {@link lonePoints} gives it a dot.
 */
export function linePath(plot: Plot, times: readonly number[], values: readonly (number | null)[]): string {
  const parts: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 1) parts.push(`M${run.join('L')}`);
    run = [];
  };
  times.forEach((time, i) => {
    const value = values[i];
    if (value === null || value === undefined) return flush();
    run.push(`${xOf(plot, time).toFixed(1)} ${yOf(plot, value).toFixed(1)}`);
  });
  flush();
  return parts.join('');
}

/** Points with a value whose neighbours have none: a line cannot show them, a dot does. */
export function lonePoints(plot: Plot, times: readonly number[], values: readonly (number | null)[]): { x: number; y: number }[] {
  const has = (i: number) => values[i] !== null && values[i] !== undefined;
  return times.flatMap((time, i) => (has(i) && !has(i - 1) && !has(i + 1) ? [{ x: xOf(plot, time), y: yOf(plot, values[i] as number) }] : []));
}
