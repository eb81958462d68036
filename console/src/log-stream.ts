// The app's logs route (GET …/apps/{appId}/logs?follow=true) read as server-sent events: `log` (one request
// with its console lines and exceptions), `live` (the recent entries are all sent), `dropped` (entries skipped
// because the reader fell behind). EventSource, since the session cookie authenticates a same-origin GET.

export interface LogEntry {
  time: string;
  replica: string;
  buildId: string;
  outcome: string;
  request?: { method: string; url: string };
  status?: number;
  /** The request's id (X-Request-Id), when the runtime records it with the entry. */
  requestId?: string;
  logs: { time: string; level: string; message: string }[];
  exceptions: { time: string; name: string; message: string; stack?: string }[];
}

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'exception';
export const STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'exception'];

export interface LogFilters {
  readonly status: readonly StatusClass[];
  readonly search: string;
}

/** The route's URL with the filters the API applies (every class, or none given, is no filter). */
export function logUrl(projectId: string, appId: string, filters: LogFilters): string {
  const query = new URLSearchParams({ follow: 'true' });
  if (filters.status.length > 0 && filters.status.length < STATUS_CLASSES.length) query.set('status', filters.status.join(','));
  if (filters.search.trim()) query.set('search', filters.search.trim());
  return `/v1/projects/${encodeURIComponent(projectId)}/apps/${encodeURIComponent(appId)}/logs?${query.toString()}`;
}

/** The class an entry's answer falls in: an exception (or a request that did not end normally) first. */
export function statusClassOf(entry: LogEntry): StatusClass | undefined {
  if (entry.outcome !== 'ok' || entry.exceptions.length > 0) return 'exception';
  return entry.status === undefined ? undefined : (`${Math.floor(entry.status / 100)}xx` as StatusClass);
}
