// A project's members: owners add and remove people and change their roles; a project keeps one owner.
import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { ProjectNav } from '../project-nav.tsx';
import { ErrorNote, field, Frame, Head, Loading, useLoad } from '../ui.tsx';

export function Members() {
  const projectId = useRoute().params.project ?? '';
  const members = useLoad(() => ok(api.GET('/v1/projects/{projectId}/members', { params: { path: { projectId } } })), [projectId]);
  const [error, setError] = useState<string | undefined>(undefined);
  const put = async (userId: string, role: 'owner' | 'member') => {
    setError(undefined);
    try {
      await ok(api.PUT('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } }, body: { role } }));
      members.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async (userId: string) => {
    if (!confirm(`Remove ${userId} from ${projectId}?`)) return;
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/members/{userId}', { params: { path: { projectId, userId } } }));
      members.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const add = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    await put(field(data, 'user'), field(data, 'role') === 'owner' ? 'owner' : 'member');
    form.reset();
  };
  return (
    <Frame title={`Members of ${projectId}`}>
      <ProjectNav projectId={projectId} current="members" />
      <ErrorNote message={members.error ?? error} />
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
                    Make {m.user_id} {m.role === 'owner' ? 'a member' : 'an owner'}
                  </button>{' '}
                  <button type="button" onClick={() => void remove(m.user_id)}>
                    Remove {m.user_id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline" onSubmit={(e) => void add(e)}>
        <label for="member-user">Add a user</label>
        <input id="member-user" name="user" required maxLength={253} />
        <label for="member-role">Role</label>
        <select id="member-role" name="role">
          <option value="member">member</option>
          <option value="owner">owner</option>
        </select>
        <button type="submit">Add member</button>
      </form>
    </Frame>
  );
}
