// Databases: create one (its token shown once, with a copy button), read its usage over time, run SQL in a
// small console, rotate its token, restore it to a point in time (into a new database, or in place with an undo),
// delete it.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok, ProblemError } from '../api/client.ts';
import { allPages } from '../api/pages.ts';
import { ProjectNav } from '../project-nav.tsx';
import { UsageChart } from '../usage-chart.tsx';
import { DatabaseQuotas } from './database-quotas.tsx';
import { RestoreInPlace } from './database-restore.tsx';
import { CopyButton, ErrorNote, field, Frame, Loading, useLoad } from '../ui.tsx';
import { scriptStatements } from '../../../src/sql/script-statements.ts';

function Secret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <section class="once" aria-label={label}>
      <p>
        {label}: shown only now, copy it. <code class="secret">{value}</code> <CopyButton text={value} label="Copy token" />
      </p>
      <button type="button" onClick={onDone}>
        I stored it
      </button>
    </section>
  );
}

export function Databases() {
  const projectId = useRoute().params.project ?? '';
  const list = useLoad(() => allPages('databases', (query) => ok(api.GET('/v1/projects/{projectId}/databases', { params: { path: { projectId }, query } }))), [projectId]);
  const [created, setCreated] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const create = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setError(undefined);
    try {
      const answer = await ok(api.POST('/v1/projects/{projectId}/databases', { params: { path: { projectId } }, body: { name: field(new FormData(form), 'name') } }));
      if (answer.database_token) setCreated(answer.database_token);
      else setError('A database of this name exists already; its token is not shown again (rotate it for a new one).');
      form.reset();
      list.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Frame title={`Databases of ${projectId}`}>
      <ProjectNav projectId={projectId} current="databases" />
      {created && <Secret label="The new database’s token" value={created} onDone={() => setCreated(undefined)} />}
      <ErrorNote message={list.error} />
      {!list.data && !list.error && <Loading what="databases" />}
      {list.data && list.data.databases.length === 0 && <p>No databases yet.</p>}
      {list.data && list.data.databases.length > 0 && (
        <ul class="cards">
          {list.data.databases.map((d) => (
            <li key={d.database_id}>
              <a href={`/console/projects/${projectId}/databases/${d.name}`}>{d.name}</a> <span class="tag">{d.status}</span>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void create(e)}>
        <label for="db-name">New database</label>
        <input id="db-name" name="name" required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" maxLength={63} placeholder="notes" />
        <button type="submit">Create database</button>
      </form>
      <ErrorNote message={error} />
    </Frame>
  );
}

export function DatabasePage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', database: params.database ?? '' };
  const db = useLoad(() => ok(api.GET('/v1/projects/{projectId}/databases/{database}', { params: { path } })), [path.projectId, path.database]);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const rotate = async () => {
    if (!confirm(`Rotate the token of ${path.database}? Every earlier token stops working.`)) return;
    try {
      setSecret((await ok(api.POST('/v1/projects/{projectId}/databases/{database}/tokens/rotate', { params: { path }, body: {} }))).database_token);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete ${path.database} and every copy of its data?`)) return;
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/databases/{database}', { params: { path } }));
      location.assign(`/console/projects/${path.projectId}/databases`);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const restore = async (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    try {
      const answer = await ok(
        api.POST('/v1/projects/{projectId}/databases', {
          params: { path: { projectId: path.projectId } },
          body: { name: field(data, 'name'), restore_from: { database: path.database, timestamp: new Date(field(data, 'at')).toISOString() } },
        }),
      );
      if (answer.database_token) setSecret(answer.database_token);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const d = db.data?.database;
  return (
    <Frame title={path.database}>
      <ProjectNav projectId={path.projectId} current="databases" />
      {secret && <Secret label="The new token" value={secret} onDone={() => setSecret(undefined)} />}
      <ErrorNote message={db.error ?? error} />
      {!d && !db.error && <Loading what="the database" />}
      {d && (
        <>
          <dl>
            <dt>Status</dt>
            <dd>{d.status_message ? `${d.status}: ${d.status_message}` : d.status}</dd>
            <dt>URL</dt>
            <dd>
              <code>{d.database_url ?? '—'}</code>
            </dd>
            <dt>Size</dt>
            <dd>
              {d.usage.size_bytes.toLocaleString()} bytes
              {d.usage.size_quota_bytes !== undefined && ` of a ${d.usage.size_quota_bytes.toLocaleString()}-byte quota`}
            </dd>
            {d.limits && (
              <>
                <dt>Statement time limit</dt>
                <dd>{d.limits.statement_timeout_ms / 1000} s</dd>
              </>
            )}
            <dt>Rows read / written</dt>
            <dd>
              {d.usage.rows_read.toLocaleString()} / {d.usage.rows_written.toLocaleString()}
            </dd>
            <dt>Restore window</dt>
            <dd>{d.restore_window ? `${new Date(d.restore_window.earliest ?? '').toLocaleString()} – ${new Date(d.restore_window.latest ?? '').toLocaleString()}` : 'none yet'}</dd>
          </dl>
          <DatabaseQuotas d={d} />
          <section aria-labelledby="usage">
            <h2 id="usage">Usage over the last day</h2>
            <UsageChart samples={d.usage_history} />
          </section>
          <SqlConsole path={path} />
          <RestoreInPlace path={path} window={d.restore_window} {...(d.last_restore ? { last: d.last_restore } : {})} pending={d.restore_pending ?? false} onRestored={db.reload} />
          <section aria-labelledby="manage">
            <h2 id="manage">Manage</h2>
            <button type="button" onClick={() => void rotate()}>
              Rotate the token
            </button>{' '}
            <button type="button" class="danger" onClick={() => void remove()}>
              Delete {path.database}
            </button>
            <form class="inline" onSubmit={(e) => void restore(e)}>
              <label for="restore-at">Restore to a new database as it was at</label>
              <input id="restore-at" name="at" type="datetime-local" step="1" required />
              <label for="restore-name">New database’s name</label>
              <input id="restore-name" name="name" required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" maxLength={63} />
              <button type="submit">Restore</button>
            </form>
          </section>
        </>
      )}
    </Frame>
  );
}

type SqlResult = { columns: string[]; rows: unknown[][]; rows_written: number };

/**
 * Runs SQL with a short-lived query token the page asks for and keeps in memory only. Several statements (a
 * pasted script) are split as sqlite3's shell splits them and run in one transaction, each answer shown.
 */
function SqlConsole({ path }: { path: { projectId: string; database: string } }) {
  const [token, setToken] = useState<string | undefined>(undefined);
  const [results, setResults] = useState<SqlResult[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = async (event: SubmitEvent) => {
    event.preventDefault();
    const sql = field(new FormData(event.currentTarget as HTMLFormElement), 'sql');
    const statements = scriptStatements(sql);
    const body = statements.length > 1 ? { statements: statements.map((s) => ({ sql: s })) } : { sql };
    setError(undefined);
    const mint = async () => (await ok(api.POST('/v1/projects/{projectId}/databases/{database}/query-tokens', { params: { path }, body: { expires_in_seconds: 3600 } }))).query_token;
    const query = (queryToken: string) => ok(api.POST('/v1/projects/{projectId}/databases/{database}/query', { params: { path }, body, headers: { authorization: `Bearer ${queryToken}` } }));
    try {
      let queryToken = token ?? (await mint());
      let answer;
      try {
        answer = await query(queryToken);
      } catch (err) {
        // The page's query token expired or was rotated away: once more with a new one.
        if (!(err instanceof ProblemError && err.status === 401)) throw err;
        queryToken = await mint();
        answer = await query(queryToken);
      }
      setToken(queryToken);
      setResults(answer.results);
    } catch (err) {
      setResults([]);
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="sql">
      <h2 id="sql">SQL console</h2>
      <form onSubmit={(e) => void run(e)}>
        <label for="sql-text">Statements</label>
        <textarea id="sql-text" name="sql" rows={3} required placeholder="select * from notes limit 20" aria-describedby="sql-hint" />
        <p id="sql-hint" class="muted">
          Several, separated by <code>;</code>, run in one transaction: all of them or none.
        </p>
        <button type="submit">Run</button>
      </form>
      <ErrorNote message={error} />
      {results.map((result, n) => (
        <SqlAnswer key={n} result={result} />
      ))}
    </section>
  );
}

function SqlAnswer({ result }: { result: SqlResult }) {
  if (result.columns.length === 0) return <p role="status">Done: {result.rows_written} rows changed.</p>;
  return (
    <table>
      <caption class="visually-hidden">Result</caption>
      <thead>
        <tr>
          {result.columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {result.rows.map((row, i) => (
          <tr key={i}>
            {row.map((cell, j) => (
              <td key={j}>{cell === null ? 'NULL' : typeof cell === 'object' ? JSON.stringify(cell) : String(cell as string | number)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
