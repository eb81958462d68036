// Project domains: add one, see why it is pending and which nameservers to set (with copy buttons), check the
// delegation, and edit its records; platform-owned records and the locked state of a pending domain are
// explained rather than offered.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { allPages } from '../api/pages.ts';
import { ProjectNav } from '../project-nav.tsx';
import { TlsDetails } from '../tls-status.tsx';
import { CopyButton, ErrorNote, field, Frame, Head, Loading, useLoad } from '../ui.tsx';

export function Domains() {
  const projectId = useRoute().params.project ?? '';
  const domains = useLoad(() => allPages('domains', (query) => ok(api.GET('/v1/projects/{projectId}/domains', { params: { path: { projectId }, query } }))), [projectId]);
  const [error, setError] = useState<string | undefined>(undefined);
  const add = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setError(undefined);
    try {
      const { domain } = await ok(api.POST('/v1/projects/{projectId}/domains', { params: { path: { projectId } }, body: { domain: field(new FormData(form), 'domain'), dns_mode: 'zone_delegated' } }));
      location.assign(`/console/projects/${projectId}/domains/${domain.domain}`);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Frame title={`Domains of ${projectId}`}>
      <ProjectNav projectId={projectId} current="domains" />
      <ErrorNote message={domains.error} />
      {!domains.data && !domains.error && <Loading what="domains" />}
      {domains.data && domains.data.domains.length === 0 && <p>No domains yet.</p>}
      {domains.data && domains.data.domains.length > 0 && (
        <ul class="cards">
          {domains.data.domains.map((d) => (
            <li key={d.domain}>
              <a href={`/console/projects/${projectId}/domains/${d.domain}`}>{d.domain}</a> <span class={d.status === 'managed' ? 'tag' : 'tag warn'}>{d.status}</span>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void add(e)}>
        <label for="domain">Add a domain</label>
        <input id="domain" name="domain" required placeholder="shop.example.com" maxLength={200} />
        <button type="submit">Add domain</button>
      </form>
      <ErrorNote message={error} />
    </Frame>
  );
}

export function DomainPage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', domain: params.domain ?? '' };
  const domain = useLoad(() => ok(api.GET('/v1/projects/{projectId}/domains/{domain}', { params: { path } })), [path.projectId, path.domain]);
  const records = useLoad(() => allPages('records', (query) => ok(api.GET('/v1/projects/{projectId}/domains/{domain}/records', { params: { path, query } }))), [path.projectId, path.domain]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [checking, setChecking] = useState(false);
  const check = async () => {
    setChecking(true);
    setError(undefined);
    try {
      await ok(api.POST('/v1/projects/{projectId}/domains/{domain}/delegation-check', { params: { path } }));
      domain.reload();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setChecking(false);
    }
  };
  const addRecord = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(undefined);
    try {
      await ok(
        api.POST('/v1/projects/{projectId}/domains/{domain}/records', {
          params: { path },
          body: { name: field(data, 'name'), type: field(data, 'type'), values: [field(data, 'value')], ...(field(data, 'ttl') ? { ttl: Number(field(data, 'ttl')) } : {}) },
        }),
      );
      form.reset();
      records.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const saveRecord = async (event: SubmitEvent, recordId: string) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    setError(undefined);
    try {
      await ok(
        api.PUT('/v1/projects/{projectId}/domains/{domain}/records/{recordId}', {
          params: { path: { ...path, recordId } },
          body: { values: [field(data, 'value')], ...(field(data, 'ttl') ? { ttl: Number(field(data, 'ttl')) } : {}) },
        }),
      );
      setEditing(undefined);
      records.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const removeRecord = async (recordId: string, label: string) => {
    if (!confirm(`Delete ${label}?`)) return;
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/domains/{domain}/records/{recordId}', { params: { path: { ...path, recordId } } }));
      records.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const d = domain.data?.domain;
  const pending = d?.status === 'pending_delegation';
  return (
    <Frame title={path.domain}>
      <ProjectNav projectId={path.projectId} current="domains" />
      <ErrorNote message={domain.error ?? error} />
      {!d && !domain.error && <Loading what="the domain" />}
      {d && (
        <section aria-labelledby="delegation">
          <h2 id="delegation">Delegation</h2>
          <p class={pending ? 'warn' : 'ok'}>
            <strong>{pending ? 'Pending delegation' : 'Managed'}</strong> — {d.status_message}
          </p>
          {pending && d.nameservers.length > 0 && (
            <>
              <p>Set these nameservers for {d.domain} at your registrar, then check again:</p>
              <ul class="nameservers">
                {d.nameservers.map((ns) => (
                  <li key={ns}>
                    <code>{ns}</code> <CopyButton text={ns} label={`Copy ${ns}`} />
                  </li>
                ))}
              </ul>
            </>
          )}
          <button type="button" onClick={() => void check()} disabled={checking}>
            {checking ? 'Checking…' : 'Check the delegation now'}
          </button>
        </section>
      )}
      {d && (
        <section aria-labelledby="certificate">
          <h2 id="certificate">Certificate</h2>
          <TlsDetails tls={d.tls} domain={d.domain} />
        </section>
      )}
      <section aria-labelledby="records">
        <h2 id="records">Records</h2>
        {pending && <p class="muted">Records can be added once the domain is managed: nobody would resolve them before. Deleting works in every state.</p>}
        <ErrorNote message={records.error} />
        {records.data && records.data.records.length === 0 && <p>No records yet.</p>}
        {records.data && records.data.records.length > 0 && (
          <table>
            <caption class="visually-hidden">Records of {path.domain}</caption>
            <Head columns={['Name', 'Type', 'Values', 'Status']} action="Action" />
            <tbody>
              {records.data.records.map((r) =>
                editing === r.record_id ? (
                  <tr key={r.record_id}>
                    <td colSpan={5}>
                      <form class="inline" onSubmit={(e) => void saveRecord(e, r.record_id)}>
                        <label for="edit-value">
                          New value of {r.type} {r.fqdn}
                        </label>
                        <input id="edit-value" name="value" required defaultValue={r.values[0] ?? ''} />
                        <label for="edit-ttl">TTL in seconds</label>
                        <input id="edit-ttl" name="ttl" type="number" min={60} max={86400} defaultValue={String(r.ttl)} />
                        <button type="submit">
                          Save {r.type} {r.fqdn}
                        </button>
                        <button type="button" onClick={() => setEditing(undefined)}>
                          Cancel
                        </button>
                      </form>
                    </td>
                  </tr>
                ) : (
                  <tr key={r.record_id}>
                    <td>{r.fqdn}</td>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.values.join(' ')}</code>
                    </td>
                    <td>{r.status}</td>
                    <td>
                      {r.owner ? (
                        <span class="muted">Managed by the platform for app {r.owner.owner_resource_id}; it goes with the app’s host name.</span>
                      ) : (
                        <>
                          <button type="button" onClick={() => setEditing(r.record_id)} disabled={pending}>
                            Edit {r.type} {r.fqdn}
                          </button>{' '}
                          <button type="button" onClick={() => void removeRecord(r.record_id, `${r.type} ${r.fqdn}`)}>
                            Delete {r.type} {r.fqdn}
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        )}
        <form class="inline" onSubmit={(e) => void addRecord(e)}>
          <label for="record-name">Name (@ for the apex)</label>
          <input id="record-name" name="name" required maxLength={253} />
          <label for="record-type">Type</label>
          <select id="record-type" name="type">
            {['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'CAA', 'NS', 'SRV'].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <label for="record-value">Value</label>
          <input id="record-value" name="value" required />
          <label for="record-ttl">TTL in seconds (60–86400; default 300)</label>
          <input id="record-ttl" name="ttl" type="number" min={60} max={86400} />
          <button type="submit" disabled={pending}>
            Add record
          </button>
        </form>
      </section>
    </Frame>
  );
}
