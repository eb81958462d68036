// A project's members: owners invite people (who become members only by accepting), change members' roles and
// remove them; a project keeps one owner. The invitations not yet answered are listed, and owners withdraw them.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { PendingInvitations } from '../pending-invitations.tsx';
import { ProjectNav } from '../project-nav.tsx';
import { useSession } from '../session.tsx';
import { ErrorNote, field, Frame, Head, Loading, useLoad } from '../ui.tsx';

type Role = 'owner' | 'member';

export function Members() {
  const projectId = useRoute().params.project ?? '';
  const { userId: me } = useSession();
  const members = useLoad(() => ok(api.GET('/v1/projects/{projectId}/members', { params: { path: { projectId } } })), [projectId]);
  const invitations = useLoad(() => ok(api.GET('/v1/projects/{projectId}/invitations', { params: { path: { projectId } } })), [projectId]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  // The API lets owners and administrators withdraw an invitation, but a console session never holds `admin` (an
  // administrator who is no member is refused this page): here only owners may withdraw.
  const owner = members.data?.members.some((m) => m.user_id === me && m.role === 'owner') ?? false;
  const act = async (call: () => Promise<string | undefined>): Promise<boolean> => {
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await call());
      members.reload();
      invitations.reload();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    }
  };
  // A member's role lowered is changed at once (200); anyone else, and a member offered the owner role, is invited (202) and must accept.
  const put = (userId: string, role: Role) =>
    act(async () => {
      const answer = await ok(api.PUT('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } }, body: { role } }));
      if ('invitation' in answer) {
        const until = new Date(answer.invitation.expires_at).toLocaleString();
        return `Invitation sent: ${userId} becomes ${article(role)} once they accept it (until ${until}).`;
      }
      return `${userId} is now ${article(answer.member.role)}.`;
    });
  const remove = (userId: string) => {
    if (!confirm(`Remove ${userId} from ${projectId}?`)) return;
    void act(async () => {
      await ok(api.DELETE('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } } }));
      return `${userId} is no longer a member.`;
    });
  };
  const withdraw = (userId: string) => {
    if (!confirm(`Withdraw the invitation of ${userId} to ${projectId}?`)) return;
    void act(async () => {
      await ok(api.DELETE('/v1/projects/{projectId}/invitations/{userId}', { params: { path: { projectId, userId } } }));
      return `The invitation of ${userId} is withdrawn.`;
    });
  };
  const invite = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    if (await put(field(data, 'user'), field(data, 'role') === 'owner' ? 'owner' : 'member')) form.reset();
  };
  return (
    <Frame title={`Members of ${projectId}`}>
      <ProjectNav projectId={projectId} current="members" />
      <ErrorNote message={members.error ?? error} />
      {message && <p role="status">{message}</p>}
      {!members.data && !members.error && <Loading what="members" />}
      {members.data && (
        <table>
          <caption class="visually-hidden">Members</caption>
          <Head columns={['User', 'Role']} action="Actions" />
          <tbody>
            {members.data.members.map((m) => (
              <tr key={m.user_id}>
                <td>{m.user_id}</td>
                <td>{m.role}</td>
                <td>
                  <button type="button" onClick={() => void put(m.user_id, m.role === 'owner' ? 'member' : 'owner')}>
                    {m.role === 'owner' ? `Make ${m.user_id} a member` : `Offer ${m.user_id} the owner role`}
                  </button>{' '}
                  <button type="button" onClick={() => remove(m.user_id)}>
                    Remove {m.user_id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <PendingInvitations load={invitations} canWithdraw={owner} onWithdraw={withdraw} />
      <form class="inline" onSubmit={(e) => void invite(e)}>
        <label for="member-user">Invite a user</label>
        <input id="member-user" name="user" required maxLength={253} />
        <label for="member-role">Role</label>
        <select id="member-role" name="role">
          <option value="member">member</option>
          <option value="owner">owner</option>
        </select>
        <button type="submit">Invite</button>
      </form>
      <p class="muted">Someone invited becomes a member only by accepting, within 7 days; until then the project is hidden from them.</p>
    </Frame>
  );
}

function article(role: Role): string {
  return role === 'owner' ? 'an owner' : 'a member';
}
