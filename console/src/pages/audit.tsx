// A project's audit trail: who changed what and when through the API, newest first, older pages on demand.
import { useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.ts';
import { ProjectNav } from '../project-nav.tsx';
import { ErrorNote, Frame, Head, Loading } from '../ui.tsx';

type Trail = paths['/v1/projects/{projectId}/audit']['get']['responses'][200]['content']['application/json'];
type Entry = Trail['entries'][number];
type ResourceType = Entry['resource']['type'];

const TYPES: readonly ResourceType[] = ['project', 'member', 'app', 'environment_variable', 'hostname', 'domain', 'dns_record', 'database', 'git_token'];

export function Audit() {
  const projectId = useRoute().params.project ?? '';
  const [type, setType] = useState<ResourceType | ''>('');
  const [entries, setEntries] = useState<Entry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const load = async (cursor: string | null, live: () => boolean = () => true) => {
    setError(undefined);
    try {
      const query = { ...(type ? { resource_type: type } : {}), ...(cursor ? { cursor } : {}) };
      const page = await ok(api.GET('/v1/projects/{projectId}/audit', { params: { path: { projectId }, query } }));
      if (!live()) return;
      setEntries((shown) => [...(cursor && shown ? shown : []), ...page.entries]);
      setNext(page.next);
    } catch (err) {
      if (live()) setError((err as Error).message);
    }
  };
  useEffect(() => {
    let live = true;
    setEntries(undefined);
    void load(null, () => live);
    return () => {
      live = false;
    };
  }, [projectId, type]);
  return (
    <Frame title={`Audit trail of ${projectId}`}>
      <ProjectNav projectId={projectId} current="audit" />
      <p class="muted">Changes made through the API (the console, cw and scripts). Changes made with kubectl are in the cluster’s own audit log.</p>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label for="audit-type">Resource type</label>
        <select id="audit-type" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as ResourceType | '')}>
          <option value="">all</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </form>
      <ErrorNote message={error} />
      {!entries && !error && <Loading what="the audit trail" />}
      {entries && entries.length === 0 && <p>No changes recorded.</p>}
      {entries && entries.length > 0 && (
        <table>
          <caption class="visually-hidden">Audit trail, newest first</caption>
          <Head columns={['Time', 'Who', 'Action', 'Resource', 'Status', 'Request id']} />
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>
                  <time dateTime={e.time}>{new Date(e.time).toLocaleString()}</time>
                </td>
                <td>
                  {e.principal.user_id}
                  <span class="muted"> ({e.principal.kind === 'session' ? 'console' : (e.principal.token_name ?? e.principal.token_id)})</span>
                </td>
                <td>{e.action}</td>
                <td>{resourceOf(e)}</td>
                <td>{e.status ?? 'pending'}</td>
                <td>
                  <code>{e.request_id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Older entries
        </button>
      )}
    </Frame>
  );
}

function resourceOf(entry: Entry): string {
  const { id, app_id: app, domain } = entry.resource;
  return `${id ?? '–'}${app ? ` (app ${app})` : domain ? ` (domain ${domain})` : ''}`;
}
