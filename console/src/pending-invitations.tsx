// A project's invitations not yet accepted, declined or lapsed (the members page): who, with what role, invited
// by whom, until when; owners withdraw them.
import type { paths } from './api/schema.ts';
import { ErrorNote, Head } from './ui.tsx';

type Invitation = paths['/v1/projects/{projectId}/invitations']['get']['responses'][200]['content']['application/json']['invitations'][number];

export function PendingInvitations({
  load,
  canWithdraw,
  onWithdraw,
}: {
  load: { data: { invitations: Invitation[] } | undefined; error: string | undefined };
  canWithdraw: boolean;
  onWithdraw: (userId: string) => void;
}) {
  if (load.error) return <ErrorNote message={load.error} />;
  if (!load.data) return null;
  if (load.data.invitations.length === 0) return <p class="muted">No invitation is pending.</p>;
  return (
    <table>
      <caption>Pending invitations</caption>
      <Head columns={['User', 'Role', 'Invited by', 'Expires']} action={canWithdraw ? 'Actions' : undefined} />
      <tbody>
        {load.data.invitations.map((i) => (
          <tr key={i.user_id}>
            <td>{i.user_id}</td>
            <td>{i.role}</td>
            <td>{i.invited_by}</td>
            <td>
              <time dateTime={i.expires_at}>{new Date(i.expires_at).toLocaleString()}</time>
            </td>
            {canWithdraw && (
              <td>
                <button type="button" onClick={() => onWithdraw(i.user_id)}>
                  Withdraw the invitation of {i.user_id}
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
