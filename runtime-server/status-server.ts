import { createServer, type ServerResponse } from 'node:http';
import { listen, type ListeningServer } from '../src/listen.ts';
import type { Registry } from 'prom-client';
import { bearerSecretCheck } from '../src/auth/shared-secret.ts';
import { KeyedSlots } from '../src/collections/keyed-slots.ts';
import { streamAppLogs, type AppLogFeed } from './log-stream.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import type { ReplicaAppMetrics, ReplicaNamespaceTotals } from '../src/runtime-contract/app-metrics.ts';

/** The apps' requests over time (`metrics-window/`), brought up to date before each answer. */
export interface AppMetricsFeed {
  app(namespace: string, app: string, since: number): Promise<ReplicaAppMetrics>;
  namespace(namespace: string, since: number): Promise<ReplicaNamespaceTotals>;
}

export interface StatusServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  healthy: () => boolean;
  /** Why the replica does not take traffic now (the readiness probe's 503 says it), or `undefined` when it does. */
  notReady: () => string | undefined;
  /** The report of one app, or `undefined` (404). */
  report: (namespace: string, app: string) => RuntimeAppReport | undefined;
  /** Every app this replica serves or has acted on. */
  reports: () => RuntimeAppReport[];
  /** The apps' logs (`GET /apps/{namespace}/{app}/logs`); absent until the engine runs. */
  logs: () => AppLogFeed | undefined;
  /** The apps' metrics window (`GET /apps/{namespace}/{app}/metrics`); absent until the engine runs. */
  metrics?: () => AppMetricsFeed | undefined;
  /** Log streams one caller (a peer address: a cw-api pod, say) may follow at once; past it, 429 (default unbounded). */
  logStreamsPerCaller?: number;
  /**
   * The secret cw-api presents (`Authorization: Bearer`) to read what apps this replica serves and their logs
   * (`/apps…`); absent: those routes answer nobody. Probes and metrics need none.
   */
  token?: string;
}

export type StatusServer = ListeningServer;

const LABEL = '([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)';
const APP_PATH = new RegExp(`^/apps/${LABEL}/${LABEL}(/logs|/metrics)?$`);
const NAMESPACE_METRICS_PATH = new RegExp(`^/namespaces/${LABEL}/app-metrics$`);
/** What a metrics read covers when it names no `since`: the last hour. */
const DEFAULT_SPAN_MS = 3_600_000;

/** The `since` (ms since the epoch) of a metrics read, or `undefined` when it is not a number. */
function sinceOf(url: string): number | undefined {
  const value = new URL(url, 'http://status').searchParams.get('since');
  if (value === null) return Date.now() - DEFAULT_SPAN_MS;
  return /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

function answerMetrics(res: ServerResponse, url: string, read: (since: number) => Promise<unknown>): void {
  const since = sinceOf(url);
  if (since === undefined) return problem(res, 400, 'Bad Request', 'since must be a time in ms since the epoch.');
  read(since).then(
    (body) => json(res, 200, body),
    () => problem(res, 500, 'Internal Server Error', 'The metrics window could not be read.'),
  );
}

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function problem(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify({ title, status, detail }));
}

/**
 * cw-runtime's internal HTTP port, apart from the entry point so apps can never shadow it: probes,
 * `/metrics`, what this replica serves (`GET /apps/{namespace}/{app}` and `GET /apps`, for people: the
 * platform reads the same reports from the replica's RuntimeReplica), and each app's live logs (cw-api's logs
 * route reads them here), and each app's requests over time (`/apps/{namespace}/{app}/metrics`, the
 * namespace's totals at `/namespaces/{namespace}/app-metrics`: cw-api's metrics routes). Not for the public:
 * keep it off the ingress. The `/apps` and `/namespaces` routes (URLs, console output, traffic) answer only a
 * caller presenting the shared token (`token`); the chart's network policy also lets only cw-api's pods reach
 * the port.
 */
export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const streams = new KeyedSlots({ total: Number.MAX_SAFE_INTEGER, perKey: options.logStreamsPerCaller ?? Number.MAX_SAFE_INTEGER });
  const authorized = options.token ? bearerSecretCheck(options.token) : () => false;
  const unauthorized = options.token
    ? 'The app routes of the status port need the runtime status token (Authorization: Bearer), which cw-api presents.'
    : 'This replica has no status token (CW_RUNTIME_STATUS_TOKEN), so its app routes answer nobody.';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const problem = path === '/healthz' ? (options.healthy() ? undefined : 'stopping') : options.notReady();
      res.writeHead(problem === undefined ? 200 : 503, { 'content-type': 'text/plain' }).end(problem === undefined ? 'ok' : `not ok: ${problem}`);
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if ((path === '/apps' || path.startsWith('/apps/') || path.startsWith('/namespaces/')) && !authorized(req.headers.authorization)) {
      problem(res, 401, 'Unauthorized', unauthorized, { 'www-authenticate': 'Bearer' });
    } else if (path === '/apps') {
      json(res, 200, { apps: options.reports() });
    } else if (NAMESPACE_METRICS_PATH.test(path) || APP_PATH.exec(path)?.[5] === '/metrics') {
      const metrics = options.metrics?.();
      const ns = NAMESPACE_METRICS_PATH.exec(path);
      const app = APP_PATH.exec(path);
      if (!metrics) problem(res, 503, 'Service Unavailable', 'The runtime is starting; its metrics window is not there yet.', { 'retry-after': '1' });
      else if (ns) answerMetrics(res, req.url ?? '', (since) => metrics.namespace(ns[1] ?? '', since));
      else answerMetrics(res, req.url ?? '', (since) => metrics.app(app?.[1] ?? '', app?.[3] ?? '', since));
    } else {
      const match = APP_PATH.exec(path);
      const logs = options.logs();
      if (match?.[5] === '/logs' && logs && req.method === 'GET') {
        const slot = streams.take(req.socket.remoteAddress ?? '');
        if (!('release' in slot)) {
          problem(res, 429, 'Too Many Requests', `This address follows ${slot.held} log streams at once, the most a caller may; close one and retry.`, { 'retry-after': '10' });
          return;
        }
        res.once('close', slot.release);
        streamAppLogs(req, res, logs, `${match[1]}/${match[3]}`);
        return;
      }
      const report = match ? options.report(match[1] ?? '', match[3] ?? '') : undefined;
      if (report && !match?.[5]) json(res, 200, report);
      else problem(res, 404, 'Not Found', 'This runtime neither serves nor knows that app.');
    }
  });
  return listen(server, options.port, options.host);
}
