// A connected app's source as the platform sees it: its state explained, its settings, and what production and
// each preview serve (the branch's head, the commit deployed, and why the head is not deployed when it is not).
import { Head } from './ui.tsx';
import { shortOid, SOURCE_REASONS, SOURCE_STATES, type AppPath, type SourceDeployment, type SourceView } from './source-words.ts';

export function SourceStatus({ source, path }: { source: SourceView; path: AppPath }) {
  const previews = source.preview_branches.length === 0 ? 'none' : source.preview_branches.join(', ');
  return (
    <section aria-labelledby="source-status">
      <h2 id="source-status">Repository</h2>
      <p class={source.state === 'ready' ? 'ok' : source.state === 'failed' ? 'error' : 'warn'}>
        <strong>{SOURCE_STATES[source.state] ?? source.state}</strong>
        {source.reason && (SOURCE_REASONS[source.reason] ? ` — ${SOURCE_REASONS[source.reason]}` : ` (${source.reason})`)}
      </p>
      {source.message && <p class="muted">{source.message}</p>}
      <dl>
        <dt>Repository</dt>
        <dd>
          <code>{source.repository}</code>
        </dd>
        <dt>Production branch</dt>
        <dd>
          <code>{source.production_branch}</code>
        </dd>
        <dt>Preview branches</dt>
        <dd>
          <code>{previews}</code>
        </dd>
        <dt>Root directory</dt>
        <dd>{source.root_directory ? <code>{source.root_directory}</code> : 'the repository’s root'}</dd>
        <dt>Build command</dt>
        <dd>{source.build_command ? <code>{source.build_command}</code> : 'none: the files are deployed as they are'}</dd>
        <dt>Output directory</dt>
        <dd>{source.output_directory ? <code>{source.output_directory}</code> : 'the root directory'}</dd>
      </dl>
      <table>
        <caption>Production and previews</caption>
        <Head columns={['Branch', 'App', 'Serves', 'Newest commit']} />
        <tbody>
          {[...(source.production ? [source.production] : []), ...source.previews].map((d) => (
            <Deployment key={d.app_id} d={d} path={path} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Deployment({ d, path }: { d: SourceDeployment; path: AppPath }) {
  const build = (id: string | undefined, text: string) => (id ? <a href={`/console/projects/${path.projectId}/apps/${path.appId}/source/builds/${id}`}>{text}</a> : <code>{text}</code>);
  return (
    <tr>
      <td>
        <code>{d.branch}</code>
      </td>
      <td>
        <a href={`/console/projects/${path.projectId}/apps/${d.app_id}`}>{d.app_id}</a>
        {d.host && <div class="muted">{d.host}</div>}
      </td>
      <td>{d.deployed_commit ? <code>{shortOid(d.deployed_commit)}</code> : 'nothing yet'}</td>
      <td>
        {d.commit ? build(d.source_build_id, shortOid(d.commit)) : '—'}
        {d.commit && d.commit === d.deployed_commit && <span class="tag">served</span>}
        {/* The message says why the head is not deployed: nothing to say once it is. */}
        {d.message && d.commit !== d.deployed_commit && <div class="warn">{d.message}</div>}
      </td>
    </tr>
  );
}
