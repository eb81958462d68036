// On an app's page: its deploy history (GET …/deployments, recorded by the operator whoever changed the
// active build): each activation, when, by whom or from which commit, how long until every replica served
// it, its rollout's steps; and a button to roll back to any build that is not the active one.
import type { DeploymentView } from './deploy-marks.ts';
import { RollbackCell, useRollback } from './rollback.tsx';
import { ErrorNote, Head } from './ui.tsx';

type AppPath = { projectId: string; appId: string };

/** Who activated it, in words: a person, a push (with its commit), or someone with kubectl (nothing recorded). */
export function byWhom(d: DeploymentView): string {
  if (d.by?.startsWith('user:')) return d.by.slice('user:'.length);
  if (d.by?.startsWith('push:')) return `push to ${d.by.slice('push:'.length, d.by.lastIndexOf('@'))}`;
  return d.by ?? 'kubectl or another client';
}

function served(d: DeploymentView): string {
  if (d.seconds_to_serve !== undefined) return `in ${d.seconds_to_serve} s`;
  if (d.aborted_at) return 'never: its rollout was aborted';
  return d.active ? 'not yet' : 'never: replaced before';
}

export function DeployHistory({ path, deployments, error, onRollback }: { path: AppPath; deployments: readonly DeploymentView[] | undefined; error: string | undefined; onRollback: () => void }) {
  const { rollback, message, error: failure } = useRollback(path, onRollback);
  return (
    <section aria-labelledby="deploy-history">
      <h2 id="deploy-history">Deploy history</h2>
      <ErrorNote message={error ?? failure} />
      <p role="status">{message}</p>
      {deployments?.length === 0 && <p>Nothing activated yet: the first deploy shows here.</p>}
      {deployments && deployments.length > 0 && (
        <table>
          <caption class="visually-hidden">Activations of a build, newest first</caption>
          <Head columns={['Build', 'When', 'By', 'Commit', 'Served', 'Rollout']} action="Action" />
          <tbody>
            {deployments.map((d) => (
              <tr key={`${d.build_id}-${d.activated_at}`}>
                <td>
                  <code>{d.build_id}</code>
                  {d.kind === 'rollback' && <span class="tag warn">rollback</span>}
                  {d.active && <span class="tag">active</span>}
                </td>
                <td>
                  <time dateTime={d.activated_at}>{new Date(d.activated_at).toLocaleString()}</time>
                </td>
                <td>{byWhom(d)}</td>
                <td>{d.commit ? <code>{d.commit.slice(0, 12)}</code> : '—'}</td>
                <td>{served(d)}</td>
                <td>{d.rollout_steps ? d.rollout_steps.map((s) => `${s.weight} %`).join(' → ') : '—'}</td>
                <RollbackCell buildId={d.build_id} active={d.active} rollback={rollback} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
