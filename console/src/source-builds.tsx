// The builds made from an app's repository (the app's and its previews'), newest first: what each built, how it
// ended and why, a link to its log, and a cancel for those still queued or running. Refreshed while shown, as
// pushes start builds from elsewhere.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { BUILD_REASONS, duration, isRunning, shortOid, type AppPath, type SourceBuild } from './source-words.ts';
import { ErrorNote, Head, Loading, useLoad, useRefresh } from './ui.tsx';

const REFRESH_MS = 3_000;

export function SourceBuilds({ path }: { path: AppPath }) {
  const list = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/source-builds', { params: { path } })), [path.projectId, path.appId]);
  const [error, setError] = useState<string | undefined>(undefined);
  useRefresh(list.reload, REFRESH_MS);
  const cancel = async (build: string) => {
    if (!confirm(`Cancel build ${build}? The app keeps serving what it serves.`)) return;
    setError(undefined);
    try {
      await ok(api.POST('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/cancel', { params: { path: { ...path, build } } }));
    } catch (err) {
      setError((err as Error).message);
    }
    list.reload();
  };
  const builds = list.data?.builds;
  return (
    <section aria-labelledby="source-builds">
      <h2 id="source-builds">Builds</h2>
      <ErrorNote message={list.error ?? error} />
      {!builds && !list.error && <Loading what="the builds" />}
      {builds && builds.length === 0 && <p>No builds yet: push to the repository.</p>}
      {builds && builds.length > 0 && (
        <table>
          <caption class="visually-hidden">Builds from the repository, newest first</caption>
          <Head columns={['Branch', 'Commit', 'State', 'Started']} action="Action" />
          <tbody>
            {builds.map((b) => (
              <BuildRow key={b.source_build_id} b={b} path={path} cancel={cancel} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function BuildRow({ b, path, cancel }: { b: SourceBuild; path: AppPath; cancel: (build: string) => Promise<void> }) {
  const why = b.reason && b.state !== 'succeeded' ? `${b.reason}${BUILD_REASONS[b.reason] ? `: ${BUILD_REASONS[b.reason]}` : ''}` : undefined;
  return (
    <tr>
      <td>
        <code>{b.branch}</code>
        {b.context === 'preview' && <div class="muted">preview {b.app_id}</div>}
      </td>
      <td>
        <a href={`/console/projects/${path.projectId}/apps/${path.appId}/source/builds/${b.source_build_id}`}>
          <code>{shortOid(b.commit)}</code>
        </a>{' '}
        {b.commit_message}
        {b.author && <div class="muted">{b.author}</div>}
      </td>
      <td>
        <span class={b.state === 'succeeded' ? 'ok' : b.state === 'failed' ? 'error' : undefined}>{b.state}</span>
        {b.cancel_requested && isRunning(b.state) && <span class="muted"> (cancelling)</span>}
        {why && <div class="muted">{why}</div>}
        {b.state === 'failed' && b.message && <div class="muted">{b.message}</div>}
      </td>
      <td>
        {b.started_at ? new Date(b.started_at).toLocaleString() : 'not yet'}
        {b.started_at && <div class="muted">{duration(b.started_at, b.finished_at)}</div>}
      </td>
      <td>
        {isRunning(b.state) && !b.cancel_requested && (
          <button type="button" onClick={() => void cancel(b.source_build_id)}>
            Cancel {b.source_build_id}
          </button>
        )}
      </td>
    </tr>
  );
}
