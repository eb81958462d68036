// The signed-in person's projects, and the invitations to others waiting for their answer.
import { api, ok } from '../api/client.ts';
import { allPages } from '../api/pages.ts';
import { ErrorNote, Frame, Loading, useLoad } from '../ui.tsx';
import { YourInvitations } from '../your-invitations.tsx';

export function Projects() {
  const { data, error, reload } = useLoad(() => allPages('projects', (query) => ok(api.GET('/v1/projects', { params: { query } }))));
  return (
    <Frame title="Projects">
      <YourInvitations onAccepted={reload} />
      <ErrorNote message={error} />
      {!data && !error && <Loading what="projects" />}
      {data && data.projects.length === 0 && (
        <p>
          You belong to no project yet. Create one with <code>cw projects create ID</code>, or ask an owner of one to invite you.
        </p>
      )}
      {data && data.projects.length > 0 && (
        <ul class="cards">
          {data.projects.map((p) => (
            <li key={p.project_id}>
              <a href={`/console/projects/${p.project_id}/apps`}>{p.name}</a>
              <span class="muted">
                {' '}
                {p.project_id} · {p.role}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Frame>
  );
}
