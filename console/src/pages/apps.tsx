// The project's overview: its apps with their last hour's traffic, the one failing most on top.
import { useRoute } from 'preact-iso';
import { api, ok } from '../api/client.ts';
import { allPages } from '../api/pages.ts';
import { percent } from '../app-metrics.tsx';
import { failingFirst } from '../failing-first.ts';
import { ProjectNav } from '../project-nav.tsx';
import { ProjectBuildQuotas } from './project-build-quotas.tsx';
import { ErrorNote, Frame, Head, Loading, useLoad, useRefresh } from '../ui.tsx';

const REFRESH_MS = 60_000;

export function Apps() {
  const { params } = useRoute();
  const projectId = params.project ?? '';
  const { data, error, reload } = useLoad(() => allPages('apps', (query) => ok(api.GET('/v1/projects/{projectId}/apps', { params: { path: { projectId }, query } }))), [projectId]);
  useRefresh(reload, REFRESH_MS);
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
          <caption class="visually-hidden">Apps, the highest error ratio of the last hour first</caption>
          <Head columns={['App', 'Status', 'Requests (1 h)', 'Errors (1 h)', 'p95 (1 h)', 'Active build', 'Source']} />
          <tbody>
            {failingFirst(data.apps).map((a) => (
              <tr key={a.app_id}>
                <td>
                  <a href={`/console/projects/${projectId}/apps/${a.app_id}`}>{a.name}</a>
                </td>
                <td>{a.ready ? 'Serving' : (a.status_reason ?? 'Not deployed')}</td>
                <td>{a.traffic ? a.traffic.requests.toLocaleString() : '—'}</td>
                <td class={(a.traffic?.error_ratio ?? 0) > 0 ? 'error' : undefined}>{a.traffic?.error_ratio != null ? percent(a.traffic.error_ratio) : '—'}</td>
                <td>{a.traffic?.p95_ms != null ? `${Math.round(a.traffic.p95_ms)} ms` : '—'}</td>
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
      {data && data.apps.length > 0 && <ProjectBuildQuotas projectId={projectId} round={data} />}
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
