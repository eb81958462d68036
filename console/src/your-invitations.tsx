// The invitations waiting for the signed-in person (the projects page): nobody becomes a member of a project
// without accepting. Accepting adds the project to their list; declining drops the invitation.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';
import { allPages } from './api/pages.ts';
import { ErrorNote, useLoad } from './ui.tsx';

/** `onAccepted` is called once a project was joined, for the page to list it. */
export function YourInvitations({ onAccepted }: { onAccepted: () => void }) {
  const invitations = useLoad(() => allPages('invitations', (query) => ok(api.GET('/v1/user/invitations', { params: { query } }))));
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const answer = async (call: () => Promise<string>) => {
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await call());
    } catch (err) {
      setError((err as Error).message);
    }
    invitations.reload();
  };
  // The role shown is the role accepted: an invitation renewed with another since is refused (409), not taken.
  const accept = (projectId: string, name: string, role: 'owner' | 'member') =>
    answer(async () => {
      const { member } = await ok(api.POST('/v1/user/invitations/{projectId}/accept', { params: { path: { projectId } }, body: { role } }));
      onAccepted();
      return `You are now ${member.role === 'owner' ? 'an owner' : 'a member'} of ${name}.`;
    });
  const decline = (projectId: string, name: string) => {
    if (!confirm(`Decline the invitation to ${name}?`)) return;
    void answer(async () => {
      await ok(api.DELETE('/v1/user/invitations/{projectId}', { params: { path: { projectId } } }));
      return `You declined the invitation to ${name}.`;
    });
  };
  const pending = invitations.data?.invitations ?? [];
  return (
    <>
      <ErrorNote message={invitations.error ?? error} />
      {message && <p role="status">{message}</p>}
      {pending.length > 0 && (
        <section aria-labelledby="invitations-heading">
          <h2 id="invitations-heading">Invitations</h2>
          <ul class="cards">
            {pending.map((i) => (
              <li key={i.project_id}>
                <strong>{i.project_name}</strong>
                <span class="muted">
                  {' '}
                  {i.project_id} · {i.role}, invited by {i.invited_by} · until <time dateTime={i.expires_at}>{new Date(i.expires_at).toLocaleString()}</time>
                </span>{' '}
                <button type="button" onClick={() => void accept(i.project_id, i.project_name, i.role)}>
                  Accept the invitation to {i.project_name}
                </button>{' '}
                <button type="button" onClick={() => decline(i.project_id, i.project_name)}>
                  Decline the invitation to {i.project_name}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
