// On an app's page, its gradual rollout: the latest rollout's phase, a bar of the new build's weight, the step,
// the stable and new builds, the last analysis interval and the operator's message, with Promote, Abort and Retry
// where they apply. Read again every 2 s while a rollout is under way, every 5 s while a policy waits for a deploy
// to start one (the API pushes nothing to the page).
import { useState } from 'preact/hooks';
import { api, ok, ProblemError } from './api/client.ts';
import { RolloutForm } from './rollout-form.tsx';
import { isUnderWay, PHASES, stepsLine, type RolloutView } from './rollout-words.ts';
import { ErrorNote, useLoad, useRefresh } from './ui.tsx';

type AppPath = { projectId: string; appId: string };
type Action = 'promote' | 'abort' | 'retry';

const LIVE_MS = 2000;
/** With a policy and no rollout under way: how soon a rollout a deploy starts shows up. */
const WATCH_MS = 5000;

/** The app's rollout, or `null` when it has no policy (the API's 404). */
async function loadRollout(path: AppPath): Promise<RolloutView | null> {
  try {
    return (await ok(api.GET('/v1/projects/{projectId}/apps/{appId}/rollout', { params: { path } }))).rollout;
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return null;
    throw err;
  }
}

export function RolloutPanel({ path }: { path: AppPath }) {
  const rollout = useLoad(() => loadRollout(path), [path.projectId, path.appId]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const view = rollout.data;
  const status = view?.status;
  useRefresh(rollout.reload, LIVE_MS, isUnderWay(status?.phase));
  useRefresh(rollout.reload, WATCH_MS, Boolean(view?.policy) && !isUnderWay(status?.phase));

  const act = async (action: Action) => {
    if (action === 'abort' && !confirm('Abort the rollout and send all traffic back to the stable build?')) return;
    setError(undefined);
    setMessage(undefined);
    setBusy(true);
    try {
      const sent = api.POST(`/v1/projects/{projectId}/apps/{appId}/rollout/${action}`, { params: { path } });
      await ok(sent);
      const handled = (await sent).response.status !== 202;
      setMessage(handled ? `${{ promote: 'Promoted', abort: 'Aborted', retry: 'Retried' }[action]}.` : `Asked to ${action}; the platform has not handled it yet.`);
      rollout.reload();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm('Remove the rollout policy? Deploys switch all traffic at once again, and so does a rollout under way.')) return;
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/projects/{projectId}/apps/{appId}/rollout', { params: { path } }));
      setMessage('Policy removed: deploys switch at once.');
      rollout.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section aria-labelledby="rollout">
      <h2 id="rollout">Rollout</h2>
      <ErrorNote message={rollout.error ?? error} />
      {view === null && <p>No rollout policy: a deploy switches all traffic at once.</p>}
      {view?.policy && (
        <p>
          Deploys go out in steps: {stepsLine(view.policy.steps)}
          {view.policy.analysis ? `, judged every ${view.policy.analysis.interval ?? '1m'} (${view.policy.on_failure === 'pause' ? 'pausing' : 'aborting'} on failure)` : ''}.
        </p>
      )}
      {status && (
        <>
          <p class={status.phase === 'Aborted' ? 'error' : status.phase === 'Succeeded' ? 'ok' : 'warn'}>
            <strong>{status.phase}</strong> — {PHASES[status.phase]}
          </p>
          <label for="rollout-weight">New build’s share of traffic: {status.weight} %</label>
          <meter id="rollout-weight" class="weight" min={0} max={100} value={status.weight} />
          <dl>
            <dt>Step</dt>
            <dd>{status.steps > 0 ? `${Math.min(status.step + 1, status.steps)} of ${status.steps}` : status.step}</dd>
            <dt>Stable build</dt>
            <dd>
              <code>{status.stable_build_id}</code>
            </dd>
            <dt>New build</dt>
            <dd>
              <code>{status.canary_build_id ?? '—'}</code>
            </dd>
            {status.analysis && (
              <>
                <dt>Last interval</dt>
                <dd>
                  stable {status.analysis.stable.requests} requests, {status.analysis.stable.errors} errors; new {status.analysis.canary.requests} requests, {status.analysis.canary.errors} errors (
                  {status.analysis.failures} failed)
                </dd>
              </>
            )}
            {status.message && (
              <>
                <dt>Message</dt>
                <dd>{status.message}</dd>
              </>
            )}
          </dl>
          <p>
            {isUnderWay(status.phase) && (
              <>
                <button type="button" disabled={busy} onClick={() => void act('promote')}>
                  Promote
                </button>{' '}
                <button type="button" disabled={busy} onClick={() => void act('abort')}>
                  Abort
                </button>
              </>
            )}
            {status.phase === 'Aborted' && (
              <button type="button" disabled={busy} onClick={() => void act('retry')}>
                Retry
              </button>
            )}
          </p>
        </>
      )}
      <p role="status">{message}</p>
      {view !== undefined && !editing && (
        <p>
          <button type="button" onClick={() => setEditing(true)}>
            {view?.policy ? 'Change the policy' : 'Set a rollout policy'}
          </button>{' '}
          {view?.policy && (
            <button type="button" onClick={() => void remove()}>
              Remove the policy
            </button>
          )}
        </p>
      )}
      {editing && view !== undefined && (
        <RolloutForm
          path={path}
          current={view?.policy}
          onDone={(saved) => {
            setEditing(false);
            if (saved) {
              setMessage('Policy saved: the next deploy rolls out in these steps.');
              rollout.reload();
            }
          }}
        />
      )}
    </section>
  );
}
