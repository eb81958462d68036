// One app: its traffic first (requests, errors and latency over time, deploys marked), then what the runtime
// serves and why (the operator's Ready condition, explained), its deploy history, where its code comes from
// (push to deploy), its gradual rollout, its builds with a rollback button, its database bindings and its environment.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Hostnames } from '../hostnames.tsx';
import { DatabaseBindings } from '../database-bindings.tsx';
import { ProjectNav } from '../project-nav.tsx';
import { SourceSummary } from '../source-summary.tsx';
import { RolloutPanel } from '../rollout-panel.tsx';
import { ErrorNote, field, Frame, Head, Loading, useLoad, useRefresh } from '../ui.tsx';
import { AppMetrics } from '../app-metrics.tsx';
import { AppNav } from '../app-nav.tsx';
import { DeployHistory } from '../deploy-history.tsx';
import { deployMarks } from '../deploy-marks.ts';
import { RollbackCell, useRollback } from '../rollback.tsx';

/** How often the deploy history (and so the charts' marks) is read again while the page is open. */
const HISTORY_REFRESH_MS = 60_000;
/** …and while its newest activation is not recorded or not served yet: the operator records it within moments. */
const SETTLING_REFRESH_MS = 2000;

/** The Ready condition's reasons, in words a person acts on. */
const REASONS: Record<string, string> = {
  Serving: 'Every runtime replica serves the active build.',
  RollingOut: 'The runtime is switching to the active build; the previous one serves meanwhile.',
  BuildFailed: 'The runtime cannot load the active build (see the message); the previous build keeps serving. Deploy a fix or roll back.',
  BuildNotFound: 'The active build’s artifact is missing from storage; the runtime keeps retrying. Roll back or deploy again.',
  InsufficientStorage: 'A runtime replica has no room on its disk for the active build; the previous build keeps serving and the runtime retries. Deploy a smaller build, or ask your platform team.',
  QuotaExceeded: 'The project’s active builds unpack to more than its quota; the previous build keeps serving. Delete apps or deploy smaller builds.',
  RuntimeUnavailable: 'No runtime replica is running: ask your platform team.',
  NoBuild: 'Nothing deployed yet: run cw deploy.',
  CPULimitExceeded: 'A request of the app computed too long without yielding: the runtime stops serving it for a while (503) and serves it again when the back-off ends. Fix the code path that loops.',
  MemoryLimitExceeded: 'The app used more memory than its runtime allows: the runtime stops serving it for a while (503) and serves it again when the back-off ends.',
};

export function AppPage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', appId: params.app ?? '' };
  const app = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}', { params: { path } })), [path.projectId, path.appId]);
  const builds = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/builds', { params: { path } })), [path.projectId, path.appId]);
  const history = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/deployments', { params: { path } })), [path.projectId, path.appId]);
  const [envRound, setEnvRound] = useState(0);
  const latest = history.data?.deployments[0];
  const settling = app.data !== undefined && (latest?.build_id !== (app.data.app.active_build_id || undefined) || (latest !== undefined && !latest.served_at && !latest.aborted_at));
  useRefresh(history.reload, settling ? SETTLING_REFRESH_MS : HISTORY_REFRESH_MS);
  const reloadAll = () => {
    app.reload();
    builds.reload();
    history.reload();
  };
  const { rollback, message, error } = useRollback(path, reloadAll);

  const a = app.data?.app;
  return (
    <Frame title={a ? a.name : path.appId}>
      <ProjectNav projectId={path.projectId} current="apps" />
      <AppNav projectId={path.projectId} appId={path.appId} current="overview" />
      <AppMetrics path={path} marks={deployMarks(history.data?.deployments ?? [])} />
      <ErrorNote message={app.error ?? error} />
      {!a && !app.error && <Loading what="the app" />}
      {a && (
        <section aria-labelledby="status">
          <h2 id="status">Status</h2>
          <p class={a.ready ? 'ok' : 'warn'}>
            <strong>{a.ready ? 'Serving' : (a.status_reason ?? 'Waiting for the runtime')}</strong>
            {a.status_reason && REASONS[a.status_reason] ? ` — ${REASONS[a.status_reason]}` : ''}
          </p>
          {a.status_message && <p class="muted">{a.status_message}</p>}
          <dl>
            <dt>Active build</dt>
            <dd>
              <code>{a.active_build_id || '—'}</code>
            </dd>
            <dt>Serving build</dt>
            <dd>
              <code>{a.serving_build_id ?? '—'}</code>
            </dd>
            <dt>Hosts</dt>
            <dd>{a.hosts.join(', ')}</dd>
            <dt>HTTP to HTTPS</dt>
            <dd>{a.https.redirect_http ? 'Redirected (308) on hosts with a certificate' : 'Not redirected'}</dd>
            <dt>HSTS</dt>
            <dd>
              {a.https.hsts ? (
                <code>{[`max-age=${a.https.hsts.max_age_seconds}`, ...(a.https.hsts.include_subdomains ? ['includeSubDomains'] : []), ...(a.https.hsts.preload ? ['preload'] : [])].join('; ')}</code>
              ) : (
                'Off'
              )}
            </dd>
          </dl>
        </section>
      )}
      <DeployHistory path={path} deployments={history.data?.deployments} error={history.error} onRollback={reloadAll} />
      {a && <SourceSummary projectId={path.projectId} app={a} />}
      {a && <RolloutPanel path={path} />}
      <p role="status">{message}</p>
      <section aria-labelledby="builds">
        <h2 id="builds">Builds</h2>
        <ErrorNote message={builds.error} />
        {builds.data && builds.data.builds.length === 0 && <p>No builds yet.</p>}
        {builds.data && builds.data.builds.length > 0 && (
          <table>
            <caption class="visually-hidden">Builds, newest first</caption>
            <Head columns={['Build', 'Uploaded', 'Size', 'Host names', 'Concurrency']} action="Action" />
            <tbody>
              {builds.data.builds.map((b) => (
                <tr key={b.build_id}>
                  <td>
                    <code>{b.build_id}</code>
                    {b.active && <span class="tag">active</span>}
                  </td>
                  <td>{new Date(b.created_at).toLocaleString()}</td>
                  <td>{b.size.toLocaleString()} B</td>
                  {/* What a rollback to the build applies again; blank for a build that recorded none. */}
                  <td>{b.deploy_options && (b.deploy_options.hostnames.join(', ') || 'no extra host names')}</td>
                  <td>{b.deploy_options && `${b.deploy_options.max_concurrent_requests ?? 'default: 100'} requests at once`}</td>
                  <RollbackCell buildId={b.build_id} active={b.active} rollback={rollback} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <Hostnames path={path} />
      <DatabaseBindings path={path} changed={() => setEnvRound((r) => r + 1)} />
      <Environment path={path} round={envRound} />
    </Frame>
  );
}

/** `round` changes when something else changed the variables (a database binding): they are read again. */
function Environment({ path, round }: { path: { projectId: string; appId: string }; round: number }) {
  const env = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/environment', { params: { path } })), [path.projectId, path.appId, round]);
  const [error, setError] = useState<string | undefined>(undefined);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(undefined);
    try {
      await ok(
        api.PUT('/v1/projects/{projectId}/apps/{appId}/environment/{key}', {
          params: { path: { ...path, key: field(data, 'key') } },
          body: { value: field(data, 'value') },
        }),
      );
      form.reset();
      env.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async (key: string) => {
    if (!confirm(`Remove ${key}?`)) return;
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/apps/{appId}/environment/{key}', { params: { path: { ...path, key } } }));
      env.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const entries = Object.entries(env.data?.environment ?? {});
  return (
    <section aria-labelledby="environment">
      <h2 id="environment">Environment</h2>
      <p class="muted">
        Plain configuration values; a change rolls out at once. Never put secrets here: bind a database with <code>cw apps bind-db APP DATABASE</code> (the app gets <code>DATABASE_URL</code> and a
        token the platform rotates, never shown).
      </p>
      <ErrorNote message={env.error ?? error} />
      {entries.length > 0 && (
        <table>
          <caption class="visually-hidden">Environment variables</caption>
          <Head columns={['Key', 'Value']} action="Action" />
          <tbody>
            {entries.map(([key, v]) => (
              <tr key={key}>
                <td>
                  <code>{key}</code>
                </td>
                <td>
                  {v.provides === 'url' ? (
                    <span>
                      URL of database <code>{v.database}</code> (given by the runtime)
                    </span>
                  ) : v.database ? (
                    <span>
                      Linked to database <code>{v.database}</code> ({v.access ?? 'read-only'} token, not shown)
                    </span>
                  ) : (
                    <code>{v.value}</code>
                  )}
                </td>
                <td>
                  <button type="button" onClick={() => void remove(key)}>
                    Remove {key}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline" onSubmit={(e) => void save(e)}>
        <label for="env-key">Key</label>
        <input id="env-key" name="key" required pattern="[A-Za-z_][A-Za-z0-9_]*" maxLength={128} />
        <label for="env-value">Value</label>
        <input id="env-value" name="value" maxLength={4096} />
        <button type="submit">Save variable</button>
      </form>
    </section>
  );
}
