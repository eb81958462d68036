// A source build's log: all of it so far, then followed live until the build ends. EventSource, since the
// session cookie authenticates a same-origin GET and the API streams the log as server-sent events
// (`log` parts, `dropped`, and one `end` with the build's end state). The stream starts with the whole log
// again after a reconnect, so the first part after each open replaces what the page holds.
import { useEffect, useState } from 'preact/hooks';
import { streamRefusal } from './stream-refusal.ts';
import { ErrorNote } from './ui.tsx';

export interface LogEnd {
  state: string;
  message?: string;
}

export function BuildLog({ url, onEnd }: { url: string; onEnd: (end: LogEnd) => void }) {
  const [text, setText] = useState('');
  const [end, setEnd] = useState<LogEnd | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    const events = new EventSource(`${url}?follow=true`);
    let fresh = true;
    events.addEventListener('open', () => {
      fresh = true;
      setError(undefined);
    });
    events.addEventListener('log', (event) => {
      const part = (JSON.parse(event.data as string) as { text: string }).text;
      setText((before) => (fresh ? part : before + part));
      fresh = false;
    });
    events.addEventListener('dropped', (event) => {
      const { count } = JSON.parse(event.data as string) as { count: number };
      setText((before) => `${before}\n[${count} parts of the log skipped: the page fell behind]\n`);
    });
    events.addEventListener('end', (event) => {
      events.close();
      const ended = JSON.parse(event.data as string) as LogEnd;
      setEnd(ended);
      onEnd(ended);
    });
    events.addEventListener('error', () => {
      // Closed: the API refused the stream (its answer says why; EventSource does not show it), so ask once more
      // without following. Connecting: a dropped connection that EventSource opens again by itself.
      if (events.readyState === EventSource.CLOSED) void streamRefusal(url, 'log').then(setError);
      else setError('The connection to the log dropped; reconnecting…');
    });
    return () => events.close();
  }, [url]);
  return (
    <section aria-labelledby="build-log">
      <h2 id="build-log">Log</h2>
      <ErrorNote message={error} />
      <p role="status" class="muted">
        {end ? `The build ended: ${end.state}${end.message ? ` — ${end.message}` : ''}.` : 'Following the log while the build runs…'}
      </p>
      <pre class="log" role="log" tabIndex={0} aria-label="Build log">
        {text || (end ? 'The log is empty.' : '')}
      </pre>
    </section>
  );
}
