// Push to deploy for one app: its connection to a repository (state, settings, what production and each preview
// serve), the form to connect it or change the settings, a disconnect, and the builds its pushes made.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok, ProblemError } from '../api/client.ts';
import { ProjectNav } from '../project-nav.tsx';
import { SourceBuilds } from '../source-builds.tsx';
import { SourceForm } from '../source-form.tsx';
import { SourceStatus } from '../source-status.tsx';
import type { SourceView } from '../source-words.ts';
import { ErrorNote, Frame, Loading, useLoad, useRefresh } from '../ui.tsx';

const REFRESH_MS = 3_000;

/** The source, or null when the app is not connected (a 404). */
async function loadSource(path: { projectId: string; appId: string }): Promise<SourceView | null> {
  try {
    return (await ok(api.GET('/v1/projects/{projectId}/apps/{appId}/source', { params: { path } }))).source;
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return null;
    throw err;
  }
}

export function AppSourcePage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', appId: params.app ?? '' };
  const source = useLoad(() => loadSource(path), [path.projectId, path.appId]);
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // Deploys follow pushes made elsewhere: a connected source's state is read again every few seconds.
  const s = source.data;
  useRefresh(source.reload, REFRESH_MS, !editing && s !== null);

  const disconnect = async () => {
    if (!confirm(`Disconnect ${path.appId} from its repository? Pushes no longer deploy, and its preview apps are deleted; the app keeps serving its build.`)) return;
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/apps/{appId}/source', { params: { path } }));
      setMessage('Disconnected: pushes no longer deploy this app.');
      source.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <Frame title={`Push to deploy: ${path.appId}`}>
      <ProjectNav projectId={path.projectId} current="apps" />
      <p>
        <a href={`/console/projects/${path.projectId}/apps/${path.appId}`}>← App {path.appId}</a>
      </p>
      <ErrorNote message={source.error ?? error} />
      <p role="status">{message}</p>
      {s === undefined && !source.error && <Loading what="the app’s repository" />}
      {s && !editing && (
        <>
          <SourceStatus source={s} path={path} />
          <button
            type="button"
            onClick={() => {
              setMessage(undefined);
              setEditing(true);
            }}
          >
            Edit settings
          </button>{' '}
          <button type="button" class="danger" onClick={() => void disconnect()}>
            Disconnect repository
          </button>
        </>
      )}
      {(s === null || (s && editing)) && (
        <SourceForm
          path={path}
          current={s ?? undefined}
          onSaved={() => {
            setEditing(false);
            setMessage(s ? 'Settings saved: the next build uses them.' : 'Connected: every push now deploys.');
            source.reload();
          }}
        />
      )}
      {s && editing && (
        <button type="button" class="link" onClick={() => setEditing(false)}>
          Cancel editing
        </button>
      )}
      {s && <SourceBuilds path={path} />}
    </Frame>
  );
}
