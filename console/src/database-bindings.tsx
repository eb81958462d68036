// An app's database bindings: a project database bound as <NAME>_URL and <NAME>_TOKEN, the token minted and
// rotated by the platform and shown nowhere (docs/databases.md, "Runtime apps and databases").
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { ErrorNote, field, Head, useLoad } from './ui.tsx';

/** `changed` tells the page the app's variables changed (a binding is two of them). */
export function DatabaseBindings({ path, changed }: { path: { projectId: string; appId: string }; changed: () => void }) {
  const list = useLoad(() => ok(api.GET('/v1/projects/{projectId}/apps/{appId}/database-bindings', { params: { path } })), [path.projectId, path.appId]);
  const [error, setError] = useState<string | undefined>(undefined);
  const done = () => {
    list.reload();
    changed();
  };
  const bind = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(undefined);
    try {
      const access = field(data, 'access') === 'full' ? 'full' : 'read-only';
      const name = field(data, 'name') || 'DATABASE';
      await ok(api.PUT('/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', { params: { path: { ...path, name } }, body: { database: field(data, 'database'), access } }));
      form.reset();
      done();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const unbind = async (name: string) => {
    if (!confirm(`Unbind ${name}? The app loses ${name}_URL and ${name}_TOKEN.`)) return;
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}', { params: { path: { ...path, name } } }));
      done();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const bindings = list.data?.bindings ?? [];
  return (
    <section aria-labelledby="database-bindings">
      <h2 id="database-bindings">Database bindings</h2>
      <p class="muted">
        The app reads <code>NAME_URL</code> and <code>NAME_TOKEN</code>: a token the platform mints and rotates, which nobody is shown. A change rolls out at once.
      </p>
      <ErrorNote message={list.error ?? error} />
      {bindings.length > 0 && (
        <table>
          <caption class="visually-hidden">Database bindings</caption>
          <Head columns={['Name', 'Database', 'Token', 'Variables']} action="Action" />
          <tbody>
            {bindings.map((b) => (
              <tr key={b.name}>
                <td>
                  <code>{b.name}</code>
                </td>
                <td>{b.database}</td>
                <td>{b.access === 'full' ? 'reads and writes' : 'reads only'}</td>
                <td>
                  <code>{b.variables.url}</code>, <code>{b.variables.token}</code>
                </td>
                <td>
                  <button type="button" onClick={() => void unbind(b.name)}>
                    Unbind {b.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline" onSubmit={(e) => void bind(e)}>
        <label for="binding-database">Database</label>
        <input id="binding-database" name="database" required pattern="[a-z0-9]([a-z0-9\-]*[a-z0-9])?" maxLength={63} />
        <label for="binding-name">Binding name</label>
        <input id="binding-name" name="name" placeholder="DATABASE" pattern="[A-Za-z_][A-Za-z0-9_]*" maxLength={120} />
        <label for="binding-access">Token</label>
        <select id="binding-access" name="access">
          <option value="read-only">reads only</option>
          <option value="full">reads and writes</option>
        </select>
        <button type="submit">Bind database</button>
      </form>
    </section>
  );
}
