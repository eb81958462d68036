// Connect an app to one of the project's repositories, or change the connection's settings (a PUT: what the form
// leaves empty gets its default). The build variables are not edited here; the form sends back those the source
// has, so a change of settings never drops them.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import type { AppPath, SourceView } from './source-words.ts';
import { ErrorNote, field } from './ui.tsx';

/** The preview patterns as typed: comma- or space-separated; empty means no previews. */
function patterns(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** The form's labels for the body's fields, so a refusal naming `body.root_directory` names what the person sees. */
const LABELS: Record<string, string> = {
  repository: 'Repository',
  production_branch: 'Production branch',
  preview_branches: 'Preview branches',
  root_directory: 'Root directory',
  build_command: 'Build command',
  output_directory: 'Output directory',
};

function inFormWords(message: string): string {
  return message.replace(/^body\.([a-z_]+)(?:\.(\d+))?/, (whole, name: string, index: string | undefined) => {
    const label = LABELS[name];
    if (!label) return whole;
    return index === undefined ? label : `${label} (pattern ${Number(index) + 1})`;
  });
}

export function SourceForm({ path, current, onSaved }: { path: AppPath; current: SourceView | undefined; onSaved: (source: SourceView) => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const optional = (name: string) => field(data, name).trim() || undefined;
    setError(undefined);
    setBusy(true);
    try {
      const { source } = await ok(
        api.PUT('/v1/projects/{projectId}/apps/{appId}/source', {
          params: { path },
          body: {
            repository: field(data, 'repository').trim(),
            production_branch: optional('production_branch'),
            preview_branches: patterns(field(data, 'preview_branches')),
            root_directory: optional('root_directory'),
            build_command: optional('build_command'),
            output_directory: optional('output_directory'),
            ...(current ? { environment: current.environment } : {}),
          },
        }),
      );
      onSaved(source);
    } catch (err) {
      setError(inFormWords((err as Error).message));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void save(e)} aria-labelledby="source-form">
      <h2 id="source-form">{current ? 'Settings' : 'Connect a repository'}</h2>
      <p class="muted">Every push to the production branch is built and deployed to this app; every other branch matching the preview patterns gets a preview app of its own.</p>
      <ErrorNote message={error} />
      <label for="source-repository">Repository</label>
      <input id="source-repository" name="repository" required placeholder={`${path.projectId}/site`} defaultValue={current?.repository ?? ''} />
      <label for="source-branch">Production branch</label>
      <input id="source-branch" name="production_branch" placeholder="main" defaultValue={current?.production_branch ?? ''} />
      <label for="source-previews">Preview branches (patterns, * for every branch; empty for no previews)</label>
      <input id="source-previews" name="preview_branches" placeholder="feature/*, fix/*" defaultValue={(current?.preview_branches ?? ['*']).join(', ')} />
      <label for="source-root">Root directory (a path inside the repository, such as apps/web; empty: its root)</label>
      <input id="source-root" name="root_directory" placeholder="apps/web" defaultValue={current?.root_directory ?? ''} />
      <label for="source-command">Build command (empty: the files are deployed as they are)</label>
      <input id="source-command" name="build_command" placeholder="npm ci && npm run build" defaultValue={current?.build_command ?? ''} />
      <label for="source-output">Output directory (a path inside the root directory, such as dist; empty: the root directory)</label>
      <input id="source-output" name="output_directory" placeholder="dist" defaultValue={current?.output_directory ?? ''} />
      <button type="submit" disabled={busy}>
        {current ? 'Save settings' : 'Connect repository'}
      </button>
    </form>
  );
}
