// Restore a database in place (D1's Time Travel): a time of its restore window, a confirmation, then the undo
// point, with a button that restores to it.
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { ErrorNote, field } from '../ui.tsx';

type Path = { projectId: string; database: string };
type LastRestore = { outcome: string; message: string; restored_to?: string; undo_point?: string };

/** `datetime-local`'s value (local time, to the second) for an ISO time. */
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function RestoreInPlace({ path, window, last, pending, onRestored }: { path: Path; window: { earliest?: string } | null; last?: LastRestore; pending?: boolean; onRestored: () => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // A restore the API answered before the operator did (202) is still under way: read the database again until it ends.
  useEffect(() => {
    if (!pending) return undefined;
    const timer = setInterval(onRestored, 2000);
    return () => clearInterval(timer);
  }, [pending, onRestored]);
  const restoreTo = async (timestamp: string, question: string) => {
    if (!confirm(question)) return;
    setError(undefined);
    setBusy(true);
    try {
      await ok(api.POST('/v1/projects/{projectId}/databases/{database}/restore', { params: { path }, body: { timestamp } }));
      onRestored();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  // No `max` on the input: "now" as of the last render goes stale while the page stays open, and the browser would
  // then refuse a recent time without a word. A time in the future is refused here instead, with a reason.
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const at = new Date(field(new FormData(event.currentTarget as HTMLFormElement), 'at')).toISOString();
    if (Date.parse(at) > Date.now()) {
      setError(`${new Date(at).toLocaleString()} is in the future: a database can be restored to a time up to now.`);
      return;
    }
    void restoreTo(at, `Restore ${path.database} in place to ${new Date(at).toLocaleString()}? Its data goes back to that time and open transactions are rolled back. You can undo it.`);
  };
  const undoPoint = last?.outcome === 'Restored' ? last.undo_point : undefined;
  return (
    <section aria-labelledby="restore-in-place">
      <h2 id="restore-in-place">Restore in place</h2>
      {window ? (
        <form class="inline" onSubmit={submit}>
          <label for="restore-in-place-at">Restore {path.database} itself (same URL and tokens) to</label>
          <input id="restore-in-place-at" name="at" type="datetime-local" step="1" required min={localInput(window.earliest ?? new Date().toISOString())} />
          <button type="submit" disabled={busy || pending}>
            {busy || pending ? 'Restoring…' : 'Restore in place'}
          </button>
        </form>
      ) : (
        <p>Nothing to restore from yet: the first copy reaches the object store within seconds.</p>
      )}
      <ErrorNote message={error} />
      {last && (
        <p role="status">
          {undoPoint ? (
            <>
              Restored to <time dateTime={last.restored_to}>{new Date(last.restored_to ?? '').toLocaleString()}</time>. Undo point: <code>{undoPoint}</code>{' '}
              <button type="button" disabled={busy || pending} onClick={() => void restoreTo(undoPoint, `Undo the restore of ${path.database}: go back to its state of ${undoPoint}?`)}>
                Undo this restore
              </button>
            </>
          ) : (
            `The last restore was refused: ${last.message}`
          )}
        </p>
      )}
    </section>
  );
}
