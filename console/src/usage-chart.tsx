// A database's usage over the last day as an SVG line chart (rows written, and size), with the same figures
// in a table for screen readers. Plain SVG elements: nothing injected as HTML, nothing a strict CSP refuses.
interface Sample {
  at: string;
  size_bytes: number;
  rows_written: number;
}

const WIDTH = 600;
const HEIGHT = 160;

function line(samples: readonly Sample[], value: (s: Sample) => number): string {
  const times = samples.map((s) => Date.parse(s.at));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const max = Math.max(1, ...samples.map(value));
  return samples
    .map((s, i) => {
      const x = t1 === t0 ? WIDTH / 2 : (((times[i] ?? t0) - t0) / (t1 - t0)) * WIDTH;
      const y = HEIGHT - (value(s) / max) * (HEIGHT - 10) - 5;
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

export function UsageChart({ samples }: { samples: readonly Sample[] }) {
  if (samples.length === 0) return <p class="muted">No usage recorded yet: the figures are sampled every five minutes.</p>;
  const last = samples.at(-1) as Sample;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="chart-title">
        <title id="chart-title">
          Rows written and size over the last day: {last.rows_written} rows written, {last.size_bytes} bytes now
        </title>
        <polyline class="rows" points={line(samples, (s) => s.rows_written)} />
        <polyline class="size" points={line(samples, (s) => s.size_bytes)} />
      </svg>
      <figcaption>
        <span class="key rows">Rows written (total)</span> <span class="key size">Size</span> · {samples.length} samples since {new Date(samples[0]?.at ?? '').toLocaleString()}
      </figcaption>
      <table class="visually-hidden">
        <caption>Usage samples</caption>
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Rows written</th>
            <th scope="col">Size (bytes)</th>
          </tr>
        </thead>
        <tbody>
          {samples.map((s) => (
            <tr key={s.at}>
              <td>{s.at}</td>
              <td>{s.rows_written}</td>
              <td>{s.size_bytes}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
