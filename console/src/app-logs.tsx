// An app's logs, live: every request the runtime replicas answer, with its console lines and exceptions,
// newest first, as they arrive. Filters by status class and text (applied by the API: changing them opens
// the stream again), pause (the page keeps what arrives meanwhile and shows it on resume), and a request's
// id when the runtime gives one, which keeps only that request's entry in view.
import { useEffect, useState } from 'preact/hooks';
import { streamRefusal } from './stream-refusal.ts';
import { logUrl, STATUS_CLASSES, statusClassOf, type LogEntry, type LogFilters } from './log-stream.ts';
import { ErrorNote, field } from './ui.tsx';

type AppPath = { projectId: string; appId: string };

/** Entries the page keeps: the newest, so an app answering thousands of requests a minute cannot fill the tab. */
const KEPT = 300;

interface Stream {
  entries: LogEntry[];
  held: LogEntry[];
  live?: number;
  dropped: number;
}

export function AppLogs({ path }: { path: AppPath }) {
  const [filters, setFilters] = useState<LogFilters>({ status: [], search: '' });
  const [paused, setPaused] = useState(false);
  const [stream, setStream] = useState<Stream>({ entries: [], held: [], dropped: 0 });
  const [error, setError] = useState<string | undefined>(undefined);
  const [request, setRequest] = useState<string | undefined>(undefined);
  const url = logUrl(path.projectId, path.appId, filters);

  useEffect(() => {
    setStream({ entries: [], held: [], dropped: 0 });
    const events = new EventSource(url);
    events.addEventListener('open', () => setError(undefined));
    events.addEventListener('log', (event) => {
      const entry = JSON.parse(event.data as string) as LogEntry;
      setStream((s) => ({ ...s, held: [entry, ...s.held].slice(0, KEPT) }));
    });
    events.addEventListener('live', (event) => {
      const { replicas } = JSON.parse(event.data as string) as { replicas: number };
      setStream((s) => ({ ...s, live: replicas }));
    });
    events.addEventListener('dropped', (event) => {
      const { count } = JSON.parse(event.data as string) as { count: number };
      setStream((s) => ({ ...s, dropped: s.dropped + count }));
    });
    events.addEventListener('error', () => {
      if (events.readyState === EventSource.CLOSED) void streamRefusal(url.replace('follow=true', 'follow=false'), 'logs').then(setError);
      else setError('The connection to the logs dropped; reconnecting…');
    });
    return () => events.close();
  }, [url]);

  // Held entries join the view at once unless paused; on resume, all of them.
  useEffect(() => {
    if (!paused && stream.held.length > 0) setStream((s) => ({ ...s, entries: [...s.held, ...s.entries].slice(0, KEPT), held: [] }));
  }, [paused, stream.held]);

  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    setFilters({ status: STATUS_CLASSES.filter((c) => data.get(`status-${c}`) === 'on'), search: field(data, 'search') });
  };
  const shown = request ? stream.entries.filter((e) => e.requestId === request) : stream.entries;
  return (
    <section aria-labelledby="logs">
      <h2 id="logs">Logs</h2>
      <form onSubmit={apply}>
        <fieldset>
          <legend>Status</legend>
          {STATUS_CLASSES.map((c) => (
            <label key={c} class="check">
              <input type="checkbox" name={`status-${c}`} /> {c === 'exception' ? 'exceptions' : c}
            </label>
          ))}
        </fieldset>
        <label for="log-search">Text in the URL, console lines or exceptions</label>
        <input id="log-search" name="search" maxLength={200} />
        <button type="submit">Apply filters</button>
      </form>
      <p>
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>{' '}
        <span role="status">
          {paused
            ? `Paused: ${stream.held.length} new ${stream.held.length === 1 ? 'entry' : 'entries'} held.`
            : stream.live === undefined
              ? 'Connecting…'
              : `Live from ${stream.live} runtime ${stream.live === 1 ? 'replica' : 'replicas'}.`}
          {stream.dropped > 0 && ` ${stream.dropped} entries skipped: the page fell behind.`}
        </span>
      </p>
      {request && (
        <p>
          Only request <code>{request}</code>.{' '}
          <button type="button" class="link" onClick={() => setRequest(undefined)}>
            Show every request
          </button>
        </p>
      )}
      <ErrorNote message={error} />
      {shown.length === 0 ? (
        <p class="muted">No request yet{filters.status.length > 0 || filters.search ? ' matching the filters' : ''}: entries show here as the app answers.</p>
      ) : (
        <ol class="log-entries" aria-label="Requests, newest first">
          {shown.map((entry, i) => (
            <Entry key={`${entry.time}-${entry.replica}-${i}`} entry={entry} onRequest={setRequest} />
          ))}
        </ol>
      )}
    </section>
  );
}

function Entry({ entry, onRequest }: { entry: LogEntry; onRequest: (id: string) => void }) {
  const status = statusClassOf(entry);
  return (
    <li class={`entry ${status === 'exception' || status === '5xx' ? 'bad' : status === '4xx' ? 'warn' : ''}`}>
      <p class="head">
        <time dateTime={entry.time}>{new Date(entry.time).toLocaleTimeString()}</time> <strong>{entry.status ?? entry.outcome}</strong>{' '}
        <code>
          {entry.request?.method} {entry.request?.url}
        </code>
      </p>
      <p class="muted meta">
        Build <code>{entry.buildId}</code> on {entry.replica}
        {entry.requestId && (
          <>
            {' '}
            · request{' '}
            <button type="button" class="link" onClick={() => onRequest(entry.requestId as string)}>
              <code>{entry.requestId}</code>
            </button>
          </>
        )}
      </p>
      {(entry.logs.length > 0 || entry.exceptions.length > 0) && (
        <pre class="log">{[...entry.logs.map((l) => `${l.level}: ${l.message}`), ...entry.exceptions.map((e) => `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}`)].join('\n')}</pre>
      )}
    </li>
  );
}
