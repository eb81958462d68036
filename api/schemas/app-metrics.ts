import { Type } from 'typebox';

// Nullable numbers as a type list, not `anyOf` (see project.ts).
const nullableNumber = (description: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], description });

const percentiles = {
  p50_ms: nullableNumber('Median latency (ms) from the merged latency histogram, linear inside its bucket; null with no requests.'),
  p95_ms: nullableNumber('95th percentile latency (ms), as p50_ms.'),
  p99_ms: nullableNumber('99th percentile latency (ms), as p50_ms.'),
};

const counts = {
  requests: Type.Integer({ description: 'Answers, every status class.' }),
  errors: Type.Integer({ description: '5xx answers (an uncaught exception is answered 500, so it is one of them).' }),
  error_ratio: nullableNumber('errors / requests; null with no requests.'),
};

const extras = {
  exceptions: Type.Integer({ description: 'Uncaught exceptions of the app (among the errors).' }),
  refused: Type.Integer({ description: '503s the runtime gave without calling the app: its queue was full, or it was quarantined (among the errors).' }),
};

export const MetricsPoint = Type.Object(
  {
    time: Type.String({ format: 'date-time', description: 'The step’s start.' }),
    ...counts,
    requests_per_second: Type.Number({ description: 'requests / step_seconds.' }),
    ...percentiles,
    status: Type.Object({ '1xx': Type.Integer(), '2xx': Type.Integer(), '3xx': Type.Integer(), '4xx': Type.Integer(), '5xx': Type.Integer() }, { description: 'Answers by status class.' }),
    ...extras,
  },
  { description: 'One step: the answers of every replica in it.' },
);

export const MetricsTotals = Type.Object({ ...counts, ...percentiles, ...extras }, { description: 'The whole span.' });

const Series = { points: Type.Array(MetricsPoint, { description: 'One per step from since to until; steps without answers are zeros with null percentiles.' }), totals: MetricsTotals };

export const AppMetrics = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'The first step’s start: the requested since, down to a step boundary.' }),
    until: Type.String({ format: 'date-time', description: 'Now: the last step is the one under way.' }),
    step_seconds: Type.Integer({ description: 'Each point’s span.' }),
    replicas: Type.Object(
      {
        answered: Type.Integer({ description: 'Live runtime replicas whose windows are in the figures.' }),
        live: Type.Integer({ description: 'Live runtime replicas.' }),
        missing: Type.Array(Type.String(), { description: 'Replicas that did not answer within 2 s: their answers are not counted.' }),
      },
      { description: 'Each replica keeps its own window since it started: one that restarted contributes from its start.' },
    ),
    ...Series,
    builds: Type.Record(Type.String(), Type.Object(Series), {
      description: 'Per build, the answers given while the app was in a rollout during the span (part of points); empty otherwise.',
    }),
    events: Type.Array(
      Type.Object({
        time: Type.String({ format: 'date-time' }),
        kind: Type.Union([Type.Literal('deploy'), Type.Literal('rollback'), Type.Literal('rollout')], { description: '`deploy`, `rollback` or `rollout` (a step, or an abort).' }),
        build_id: Type.Optional(Type.String()),
        detail: Type.Optional(Type.String()),
      }),
      { description: 'Markers for the time axis: deploys, rollbacks and rollout steps.' },
    ),
  },
  { description: 'An app’s requests, errors and latency over time, from every live runtime replica.' },
);

export const MetricsQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      maxLength: 40,
      pattern: '^([1-9][0-9]{0,4}[mh]|[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2}))$',
      description: 'A duration back from now, `15m`, `1h`, `6h`, `24h` (at most 24h), or an RFC 3339 time within the last 24 hours; default `1h`.',
    }),
  ),
  step: Type.Optional(Type.String({ enum: ['1m', '5m', '15m', '1h'], description: 'Each point’s span; default the smallest giving at most 120 points (1h → 1m, 6h → 5m, 24h → 15m).' })),
});

export const AppTraffic = Type.Object(
  {
    requests: Type.Integer({ description: 'Answers in the last hour.' }),
    error_ratio: nullableNumber('5xx answers / requests; null with no requests.'),
    p95_ms: nullableNumber('95th percentile latency (ms); null with no requests.'),
  },
  { description: 'The app’s last hour on the runtime replicas that answered; absent when none did.' },
);
