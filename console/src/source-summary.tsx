// On an app's page, where its code comes from: the repository that deploys it on each push, the app and branch a
// preview app serves and the commit it serves now, or a link to connect a repository.
import { api, ok } from './api/client.ts';
import { shortOid } from './source-words.ts';
import { ErrorNote, useLoad } from './ui.tsx';

interface AppSourceFields {
  app_id: string;
  preview_of?: string;
  branch?: string;
  source?: string;
  source_message?: string;
}

export function SourceSummary({ projectId, app }: { projectId: string; app: AppSourceFields }) {
  const apps = `/console/projects/${projectId}/apps`;
  return (
    <section aria-labelledby="source">
      <h2 id="source">Push to deploy</h2>
      {app.preview_of ? (
        <PreviewOf projectId={projectId} app={app} of={app.preview_of} />
      ) : app.source ? (
        <>
          <p>
            Each push to <code>{app.source}</code> deploys this app. <a href={`${apps}/${app.app_id}/source`}>Repository and builds</a>
          </p>
          {app.source_message && <p class="warn">{app.source_message}</p>}
        </>
      ) : (
        <p>
          Not connected to a repository. <a href={`${apps}/${app.app_id}/source`}>Connect a repository</a> to deploy every push.
        </p>
      )}
    </section>
  );
}

/** A preview app: its app and branch, and the commit it serves as its source's status says. */
function PreviewOf({ projectId, app, of }: { projectId: string; app: AppSourceFields; of: string }) {
  const source = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/source', { params: { path: { projectId, appId: of } } })), [projectId, of]);
  const preview = source.data?.source.previews.find((p) => p.app_id === app.app_id);
  const apps = `/console/projects/${projectId}/apps`;
  return (
    <>
      <p>
        A preview of <a href={`${apps}/${of}`}>{of}</a> for the branch <code>{app.branch}</code>: each push to the branch deploys here. <a href={`${apps}/${of}/source`}>Repository and builds</a>
      </p>
      <ErrorNote message={source.error} />
      {preview && (
        <p>
          {preview.deployed_commit ? (
            <>
              Serves commit <code>{shortOid(preview.deployed_commit)}</code>.
            </>
          ) : (
            'Nothing deployed yet.'
          )}
        </p>
      )}
      {preview?.message && preview.commit !== preview.deployed_commit && <p class="warn">{preview.message}</p>}
    </>
  );
}
