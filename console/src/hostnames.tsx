// An app's own host names: attach one (the platform says which DNS records must exist, or writes them in a
// managed project domain), publish them, finalize, detach; each binding's state and what it waits for.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { TlsSummary } from './tls-status.tsx';
import { CopyButton, ErrorNote, field, Head, useLoad } from './ui.tsx';

interface Attached {
  domain: string;
  dns_records?: { record_type: string; name: string; value: string }[];
  managed_dns?: { project_domain: string; status: string };
}

export function Hostnames({ path }: { path: { projectId: string; appId: string } }) {
  const list = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/domains', { params: { path } })), [path.projectId, path.appId]);
  const [attached, setAttached] = useState<Attached | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const attach = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(undefined);
    try {
      const mode = field(data, 'mode') === 'managed_project_domain' ? 'managed_project_domain' : 'external_records';
      setAttached(await ok(api.POST('/v1/projects/{projectId}/apps/{appId}/domains', { params: { path }, body: { domain: field(data, 'hostname'), dns_mode: mode } })));
      form.reset();
      list.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const detach = async (domain: string) => {
    if (!confirm(`Detach ${domain}? The app will no longer be served on it.`)) return;
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/apps/{appId}/domains/{domain}', { params: { path: { ...path, domain } } }));
      if (attached?.domain === domain) setAttached(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
    list.reload();
  };
  const finalize = async (domain: string) => {
    setError(undefined);
    try {
      const bound = await ok(api.POST('/v1/projects/{projectId}/apps/{appId}/domains/{domain}/finalize', { params: { path: { ...path, domain } } }));
      if (bound.status === 'active' && attached?.domain === domain) setAttached(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
    list.reload();
  };
  return (
    <section aria-labelledby="hostnames">
      <h2 id="hostnames">Host names</h2>
      <ErrorNote message={list.error ?? error} />
      {list.data && list.data.domains.length > 0 && (
        <table>
          <caption class="visually-hidden">Host names of the app</caption>
          <Head columns={['Host name', 'State', 'Certificate']} action="Action" />
          <tbody>
            {list.data.domains.map((h) => (
              <tr key={h.domain}>
                <td>{h.domain}</td>
                <td>
                  {h.status}
                  {h.status !== 'active' && <span class="muted"> — {h.status_message}</span>}
                </td>
                <td>
                  <TlsSummary tls={h.tls} />
                </td>
                <td>
                  {h.status !== 'active' && (
                    <button type="button" onClick={() => void finalize(h.domain)}>
                      Finalize {h.domain}
                    </button>
                  )}{' '}
                  <button type="button" onClick={() => void detach(h.domain)}>
                    Detach {h.domain}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {attached?.dns_records?.length === 0 && <p role="status">The records to publish for {attached.domain} are not known yet: reload in a moment.</p>}
      {attached?.dns_records && attached.dns_records.length > 0 && (
        <div class="once" role="status">
          <p>Publish these records for {attached.domain} at your DNS provider, exactly as shown, then finalize:</p>
          <ul class="nameservers">
            {attached.dns_records.map((r) => (
              <li key={`${r.record_type} ${r.name}`}>
                <code>
                  {r.record_type} {r.name} {r.value}
                </code>{' '}
                <CopyButton text={r.value} label={`Copy the ${r.record_type} value of ${r.name}`} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {attached?.managed_dns && (
        <p role="status">
          {attached.managed_dns.status === 'applied'
            ? `The platform wrote the records in ${attached.managed_dns.project_domain}: finalize now.`
            : attached.managed_dns.status === 'pending'
              ? `The records are still being written in ${attached.managed_dns.project_domain}: reload in a moment.`
              : `Writing the records in ${attached.managed_dns.project_domain} failed for now; the platform keeps retrying.`}
        </p>
      )}
      <form class="inline" onSubmit={(e) => void attach(e)}>
        <label for="hostname">Attach a host name</label>
        <input id="hostname" name="hostname" required maxLength={253} placeholder="www.example.com" />
        <label for="hostname-mode">DNS</label>
        <select id="hostname-mode" name="mode">
          <option value="external_records">I publish the records myself</option>
          <option value="managed_project_domain">Write them in my managed project domain</option>
        </select>
        <button type="submit">Attach</button>
      </form>
    </section>
  );
}
