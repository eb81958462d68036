import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { act, choiceOption, examples, withJson } from '../command-kit.ts';
import type { Context } from '../context.ts';
import { paint, printJson, printTable, println } from '../output.ts';
import type { paths } from '../api/schema.ts';
import { latency, percent, shortCount, sparkline, trafficLine } from './metrics-format.ts';

type AppMetrics = paths['/v1/projects/{projectId}/apps/{appId}/metrics']['get']['responses'][200]['content']['application/json']['metrics'];

const STEPS = ['1m', '5m', '15m', '1h'] as const;

interface MetricsOptions {
  since: string;
  step?: (typeof STEPS)[number];
}

/** A commander parser for `--since`: a duration up to 24h (`15m`, `1h`) or an RFC 3339 time, as the API takes it. */
export function sinceOption(value: string): string {
  const duration = /^([1-9][0-9]{0,4})(m|h)$/.exec(value);
  if (duration && Number(duration[1]) * (duration[2] === 'h' ? 60 : 1) <= 24 * 60) return value;
  if (!duration && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return value;
  throw new InvalidArgumentError('expected a duration up to 24h such as 15m, 1h or 6h, or an RFC 3339 time within the last 24 hours.');
}

export function registerMetrics(program: Command): void {
  examples(
    act(
      withJson(
        program
          .command('metrics')
          .argument('<app>', 'app id')
          .description("Show an app's requests, errors and latency over time (up to the last 24 h), from every runtime replica")
          .option('--since <when>', 'how far back: 15m, 1h, 6h, 24h, or an RFC 3339 time', sinceOption, '1h')
          .option('--step <step>', `each row's span: ${STEPS.join(', ')} (default: at most 120 rows)`, choiceOption(STEPS)),
      ),
      metrics,
    ),
    ['cw metrics web', 'cw metrics web --since 24h', 'cw metrics web --since 6h --step 15m --json'],
  );
}

/** The app's metrics since `since` (a duration or time, as the API takes it). */
export async function readMetrics(ctx: Context, appId: string, since: string, step?: string): Promise<AppMetrics> {
  const projectId = await ctx.project();
  const answer = await ctx.ok(
    ctx.api.GET('/v1/projects/{projectId}/apps/{appId}/metrics', { params: { path: { projectId, appId }, query: { since, ...(step ? { step: step as (typeof STEPS)[number] } : {}) } } }),
  );
  return answer.metrics;
}

async function metrics(ctx: Context, appId: string, options: MetricsOptions): Promise<void> {
  const m = await readMetrics(ctx, appId, options.since, options.step);
  if (ctx.json) return printJson({ metrics: m });
  const step = m.step_seconds >= 3600 ? `${m.step_seconds / 3600}h` : `${m.step_seconds / 60}m`;
  println(`${paint('bold', appId)} since ${m.since}, ${step} steps · ${replicasNote(m.replicas)}`);
  if (process.stdout.isTTY) println(`requests/s ${sparkline(m.points.map((p) => p.requests_per_second))}`);
  printTable(
    ['TIME', 'REQ/S', 'REQUESTS', 'ERRORS', 'ERROR %', 'P50', 'P95', 'P99'],
    m.points.map((p) => [p.time, p.requests_per_second, p.requests, p.errors, percent(p.error_ratio), latency(p.p50_ms), latency(p.p95_ms), latency(p.p99_ms)]),
  );
  const t = m.totals;
  println(`total: ${trafficLine(t)} · p50 ${latency(t.p50_ms)} · p99 ${latency(t.p99_ms)} · exceptions ${shortCount(t.exceptions)} · refused ${shortCount(t.refused)}`);
}

/** `2 of 2 runtime replicas`, naming those that did not answer. */
export function replicasNote(r: AppMetrics['replicas']): string {
  const missing = r.missing.length > 0 ? ` (no answer from ${r.missing.join(', ')})` : '';
  return `${r.answered} of ${r.live} runtime replica${r.live === 1 ? '' : 's'}${missing}`;
}
