// Test helper: reads a cw-git's `GET /metrics` (Prometheus text) as a client would, and looks samples up.

export interface Scrape {
  /** The sample of `name` with exactly `labels`; undefined when the series has not been created. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

/** `GET <url>/metrics` with `token`. */
export async function scrape(url: string, token: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const samples = parse(await response.text());
  return {
    value(name, labels = {}) {
      const wanted = Object.entries(labels).sort().join('\n');
      return samples.find((s) => s.name === name && s.labels === wanted)?.value;
    },
  };
}

function parse(text: string): { name: string; labels: string; value: number }[] {
  const samples = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]);
    samples.push({ name: match[1]!, labels: labels.sort().join('\n'), value: Number(match[3]) });
  }
  return samples;
}
