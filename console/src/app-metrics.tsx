// On an app's page, first: its requests per second, error ratio and p95/p99 latency over the last hour or day,
// from the runtime replicas' windows (GET …/metrics), with its deploys, rollbacks and rollout steps marked.
// Read again every minute while the page is open (a step is a minute), as the API pushes nothing.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { clock, TimeChart, type Mark, type TimeChartProps } from './charts/time-chart.tsx';
import { ErrorNote, Loading, useLoad, useRefresh } from './ui.tsx';

type AppPath = { projectId: string; appId: string };
type Window = '1h' | '24h';

const REFRESH_MS = 60_000;
const WINDOWS: Record<Window, string> = { '1h': 'Last hour', '24h': 'Last day' };

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1).replace(/\.?0+$/, '')} %`;
}
const rate = (perSecond: number) => `${perSecond < 10 ? perSecond.toFixed(2).replace(/\.?0+$/, '') : Math.round(perSecond)}/s`;
const ms = (value: number) => `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ms`;

export function AppMetrics({ path, marks }: { path: AppPath; marks: readonly Mark[] }) {
  const [window, setWindow] = useState<Window>('1h');
  const metrics = useLoad(() => loadMetrics(path, window), [path.projectId, path.appId, window]);
  useRefresh(metrics.reload, REFRESH_MS);
  const m = metrics.data?.metrics;
  const since = m ? Date.parse(m.since) : 0;
  const until = m ? Date.parse(m.until) : 0;
  const times = m?.points.map((p) => Date.parse(p.time)) ?? [];
  // Listed up to now; drawn up to the charts' end (a deploy after it is drawn at the next refresh).
  const inWindow = marks.filter((mark) => mark.time >= since);
  return (
    <section aria-labelledby="traffic">
      <h2 id="traffic">Traffic</h2>
      <div class="toggle" role="group" aria-label="Time span">
        {(Object.keys(WINDOWS) as Window[]).map((w) => (
          <button type="button" key={w} aria-pressed={w === window} onClick={() => setWindow(w)}>
            {WINDOWS[w]}
          </button>
        ))}
      </div>
      <ErrorNote message={metrics.error} />
      {!m && !metrics.error && <Loading what="traffic" />}
      {m && (
        <>
          <p role="status">
            {WINDOWS[window]}: {m.totals.requests.toLocaleString()} requests
            {m.totals.error_ratio !== null && `, ${percent(m.totals.error_ratio)} errors`}
            {m.totals.p95_ms !== null && `, p95 ${ms(m.totals.p95_ms)}`}
            {m.totals.p99_ms !== null && `, p99 ${ms(m.totals.p99_ms)}`}. {m.replicas.answered} of {m.replicas.live} runtime replicas answered
            {m.replicas.missing.length > 0 && ` (not ${m.replicas.missing.join(', ')})`}.
          </p>
          {m.replicas.answered === 0 ? (
            <p class="muted">No runtime replica answered, so there are no figures to chart: the runtime keeps them (docs/runtime.md).</p>
          ) : (
            <div class="charts">
              {charts(m).map((chart) => (
                <TimeChart key={chart.id} {...chart} since={since} until={until} times={times} marks={inWindow} />
              ))}
            </div>
          )}
          <MarkList marks={inWindow} />
        </>
      )}
    </section>
  );
}

type Metrics = NonNullable<Awaited<ReturnType<typeof loadMetrics>>>['metrics'];
type ChartOf = Omit<TimeChartProps, 'since' | 'until' | 'times' | 'marks'>;

function loadMetrics(path: AppPath, since: Window) {
  return ok(api.GET('/v1/projects/{projectId}/apps/{appId}/metrics', { params: { path, query: { since } } }));
}

/** The highest value and when (undefined when no step has one). */
function peak(m: Metrics, values: readonly (number | null)[]): { value: number; time: number } | undefined {
  let at = -1;
  values.forEach((v, i) => {
    if (v !== null && (at < 0 || v > (values[at] ?? 0))) at = i;
  });
  return at < 0 ? undefined : { value: values[at] as number, time: Date.parse(m.points[at]?.time ?? '') };
}

/** The three charts: requests per second, error ratio, p95 and p99 latency, each with its one-sentence summary. */
function charts(m: Metrics): ChartOf[] {
  const rps = m.points.map((p) => p.requests_per_second);
  const ratio = m.points.map((p) => p.error_ratio);
  const p95 = m.points.map((p) => p.p95_ms);
  const p99 = m.points.map((p) => p.p99_ms);
  const busiest = peak(m, rps);
  const worst = peak(m, ratio);
  const slowest = peak(m, p99);
  const none = 'No requests in this span.';
  return [
    {
      id: 'chart-rps',
      title: 'Requests per second',
      summary: busiest && busiest.value > 0 ? `${m.totals.requests.toLocaleString()} requests; peak ${rate(busiest.value)} at ${clock(busiest.time)}.` : none,
      series: [{ label: 'Requests per second', className: 'requests', values: rps }],
      format: rate,
    },
    {
      id: 'chart-errors',
      title: 'Error ratio (5xx)',
      summary: worst ? `${percent(m.totals.error_ratio ?? 0)} of requests failed; worst ${percent(worst.value)} at ${clock(worst.time)}.` : none,
      series: [{ label: 'Error ratio', className: 'errors', values: ratio }],
      format: percent,
      minMax: 0.01,
    },
    {
      id: 'chart-latency',
      title: 'Latency (p95, p99)',
      summary: slowest ? `p95 ${ms(m.totals.p95_ms ?? 0)}, p99 ${ms(m.totals.p99_ms ?? 0)} over the span; slowest p99 ${ms(slowest.value)} at ${clock(slowest.time)}.` : none,
      series: [
        { label: 'p95', className: 'p95', values: p95 },
        { label: 'p99', className: 'p99', values: p99 },
      ],
      format: ms,
      minMax: 10,
    },
  ];
}

/** The marks in words, newest first: what D, R, % and × on the charts stand for. */
function MarkList({ marks }: { marks: readonly Mark[] }) {
  if (marks.length === 0) return <p class="muted">No deploy, rollback or rollout step in this span.</p>;
  return (
    <>
      <h3>Marked on the charts</h3>
      <ul class="marks">
        {[...marks]
          .sort((a, b) => b.time - a.time)
          .map((mark) => (
            <li key={`${mark.kind}-${mark.time}`} class={`mark ${mark.kind}`}>
              <span aria-hidden="true" class="glyph">
                {{ deploy: 'D', rollback: 'R', rollout: '%', abort: '×' }[mark.kind]}
              </span>{' '}
              {clock(mark.time)} — {mark.label}
            </li>
          ))}
      </ul>
    </>
  );
}
