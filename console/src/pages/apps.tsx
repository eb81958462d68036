import { useRoute } from 'preact-iso';
import { api, ok } from '../api/client.ts';
import { ProjectNav } from '../project-nav.tsx';
import { ErrorNote, Frame, Head, Loading, useLoad } from '../ui.tsx';

export function Apps() {
  const { params } = useRoute();
  const projectId = params.project ?? '';
  const { data, error } = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps', { params: { path: { projectId } } })), [projectId]);
  return (
    <Frame title={`Apps of ${projectId}`}>
      <ProjectNav projectId={projectId} current="apps" />
      <ErrorNote message={error} />
      {!data && !error && <Loading what="apps" />}
      {data && data.apps.length === 0 && (
        <p>
          No apps yet. Deploy one with <code>cw deploy ./my-worker --app hello --project {projectId}</code>.
        </p>
      )}
      {data && data.apps.length > 0 && (
        <table>
          <caption class="visually-hidden">Apps</caption>
          <Head columns={['App', 'Status', 'Active build', 'Source']} />
          <tbody>
            {data.apps.map((a) => (
              <tr key={a.app_id}>
                <td>
                  <a href={`/console/projects/${projectId}/apps/${a.app_id}`}>{a.name}</a>
                </td>
                <td>{a.ready ? 'Serving' : (a.status_reason ?? 'Not deployed')}</td>
                <td>
                  <code>{a.active_build_id || '—'}</code>
                </td>
                <td>
                  <AppSource app={a} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Frame>
  );
}

/** Where the app's code comes from: the app and branch a preview serves, or the repository that deploys it. */
function AppSource({ app }: { app: { preview_of?: string; branch?: string; source?: string } }) {
  if (app.preview_of)
    return (
      <>
        Preview of {app.preview_of}, branch <code>{app.branch}</code>
      </>
    );
  return app.source ? <code>{app.source}</code> : null;
}
