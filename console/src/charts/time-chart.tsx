// A line chart over time as SVG drawn by the console itself (docs/console.md says why no library): the value
// axis in round numbers, the time axis in local time, lines with gaps where a step has no value, and marks
// for deploys, rollbacks and rollout steps. Its text alternatives: a summary sentence (also the SVG's name)
// and every figure in a table behind a disclosure. Plain SVG elements only: nothing a strict CSP refuses.
import { linePath, lonePoints, niceMax, timeTicks, xOf, yOf, type Plot } from './geometry.ts';

export interface Series {
  readonly label: string;
  /** A class of styles.css: its colour and dash pattern (lines never differ by colour alone). */
  readonly className: string;
  readonly values: readonly (number | null)[];
}

export interface Mark {
  readonly time: number;
  readonly kind: 'deploy' | 'rollback' | 'rollout' | 'abort';
  readonly label: string;
}

export interface TimeChartProps {
  readonly id: string;
  readonly title: string;
  /** One sentence with the figures that matter (now, peak): the chart's name for screen readers, shown too. */
  readonly summary: string;
  readonly since: number;
  readonly until: number;
  readonly times: readonly number[];
  readonly series: readonly Series[];
  readonly marks: readonly Mark[];
  readonly format: (value: number) => string;
  /** The smallest top of the value axis (an error ratio of 0.1 % should not fill the chart). */
  readonly minMax?: number;
}

const SIZE = { width: 360, height: 150, left: 44, right: 8, top: 14, bottom: 20 } as const;
const MARK_GLYPH: Record<Mark['kind'], string> = { deploy: 'D', rollback: 'R', rollout: '%', abort: '×' };

export function clock(time: number): string {
  return new Date(time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export function TimeChart(props: TimeChartProps) {
  const { id, title, summary, since, until, times, series, marks, format } = props;
  const highest = Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const plot: Plot = { ...SIZE, since, until, yMax: niceMax(Math.max(highest, props.minMax ?? 0)) };
  const inside = marks.filter((m) => m.time >= since && m.time <= until);
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <p id={`${id}-summary`} class="muted">
          {summary}
        </p>
      </figcaption>
      <svg viewBox={`0 0 ${SIZE.width} ${SIZE.height}`} role="img" aria-labelledby={`${id}-title ${id}-summary`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f} class="grid">
            <line x1={SIZE.left} x2={SIZE.width - SIZE.right} y1={yOf(plot, plot.yMax * f)} y2={yOf(plot, plot.yMax * f)} />
            <text x={SIZE.left - 4} y={yOf(plot, plot.yMax * f) + 4} text-anchor="end">
              {format(plot.yMax * f)}
            </text>
          </g>
        ))}
        {timeTicks(since, until)
          // A label would overflow the chart's edge.
          .filter((t) => xOf(plot, t) > SIZE.left + 12 && xOf(plot, t) < SIZE.width - SIZE.right - 12)
          .map((t) => (
            <text key={t} class="tick" x={xOf(plot, t)} y={SIZE.height - 5} text-anchor="middle">
              {clock(t)}
            </text>
          ))}
        {inside.map((m) => (
          <g key={`${m.kind}-${m.time}`} class={`mark ${m.kind}`}>
            <line x1={xOf(plot, m.time)} x2={xOf(plot, m.time)} y1={SIZE.top} y2={SIZE.height - SIZE.bottom} />
            <text x={xOf(plot, m.time)} y={SIZE.top - 3} text-anchor="middle">
              {MARK_GLYPH[m.kind]}
            </text>
          </g>
        ))}
        {series.map((s) => (
          <g key={s.label} class={`series ${s.className}`}>
            <path d={linePath(plot, times, s.values)} />
            {lonePoints(plot, times, s.values).map((p) => (
              <circle key={p.x} cx={p.x} cy={p.y} r={2.5} />
            ))}
          </g>
        ))}
      </svg>
      {series.length > 1 && (
        <p class="legend">
          {series.map((s) => (
            <span key={s.label} class={`key ${s.className}`}>
              {s.label}
            </span>
          ))}
        </p>
      )}
      <details>
        <summary>{title}: the figures</summary>
        <table>
          <caption class="visually-hidden">{title}, one row per step</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times.map((t, i) => (
              <tr key={t}>
                <td>{clock(t)}</td>
                {series.map((s) => {
                  const value = s.values[i];
                  return <td key={s.label}>{value === null || value === undefined ? '—' : format(value)}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
