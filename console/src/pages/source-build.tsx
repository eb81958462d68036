// One build from an app's repository: what it built, how it ended and why, and its log, followed live while it
// runs.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { BuildLog } from '../build-log.tsx';
import { ProjectNav } from '../project-nav.tsx';
import { BUILD_REASONS, duration, isRunning } from '../source-words.ts';
import { ErrorNote, Frame, Loading, useLoad, useRefresh } from '../ui.tsx';

const REFRESH_MS = 3_000;

export function SourceBuildPage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', appId: params.app ?? '', build: params.build ?? '' };
  const loaded = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}', { params: { path } })), [path.projectId, path.appId, path.build]);
  const [error, setError] = useState<string | undefined>(undefined);
  const cancel = async () => {
    if (!confirm(`Cancel build ${path.build}? The app keeps serving what it serves.`)) return;
    setError(undefined);
    try {
      await ok(api.POST('/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/cancel', { params: { path } }));
    } catch (err) {
      setError((err as Error).message);
    }
    loaded.reload();
  };
  const b = loaded.data?.build;
  // Queued becomes building (and a cancel takes effect) without an event on the log: read again meanwhile.
  useRefresh(loaded.reload, REFRESH_MS, b !== undefined && isRunning(b.state));
  const base = `/console/projects/${path.projectId}/apps/${path.appId}`;
  return (
    <Frame title={`Build ${path.build}`}>
      <ProjectNav projectId={path.projectId} current="apps" />
      <p>
        <a href={`${base}/source`}>← Push to deploy: {path.appId}</a>
      </p>
      <ErrorNote message={loaded.error ?? error} />
      {!b && !loaded.error && <Loading what="the build" />}
      {b && (
        <section aria-labelledby="build">
          <h2 id="build">What was built</h2>
          <dl>
            <dt>State</dt>
            <dd class={b.state === 'succeeded' ? 'ok' : b.state === 'failed' ? 'error' : undefined}>
              {b.state}
              {b.reason && b.state !== 'succeeded' && ` (${b.reason}${BUILD_REASONS[b.reason] ? `: ${BUILD_REASONS[b.reason]}` : ''})`}
              {b.cancel_requested && isRunning(b.state) && ', cancelling'}
            </dd>
            {b.message && b.message !== b.state && (
              <>
                <dt>Message</dt>
                <dd>{b.message}</dd>
              </>
            )}
            <dt>Branch</dt>
            <dd>
              <code>{b.branch}</code> ({b.context}, deploys to <a href={`/console/projects/${path.projectId}/apps/${b.app_id}`}>{b.app_id}</a>)
            </dd>
            <dt>Commit</dt>
            <dd>
              <code>{b.commit}</code>
              {b.commit_message && ` ${b.commit_message}`}
              {b.author && <span class="muted"> by {b.author}</span>}
            </dd>
            <dt>Started</dt>
            <dd>{b.started_at ? `${new Date(b.started_at).toLocaleString()}, ${duration(b.started_at, b.finished_at)}` : 'not yet'}</dd>
            <dt>Stored as</dt>
            <dd>
              <code>{b.build_id ?? '—'}</code>
            </dd>
          </dl>
          {isRunning(b.state) && !b.cancel_requested && (
            <button type="button" onClick={() => void cancel()}>
              Cancel build
            </button>
          )}
        </section>
      )}
      <BuildLog url={`/v1/projects/${path.projectId}/apps/${path.appId}/source-builds/${path.build}/logs`} onEnd={loaded.reload} />
    </Frame>
  );
}
