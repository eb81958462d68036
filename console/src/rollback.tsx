// Rolling back from the app's page, from its builds or its deploy history: the confirmation, the call to the
// rollback route, and what the page says after.
import { useState } from 'preact/hooks';
import { api, ok } from './api/client.ts';

type AppPath = { projectId: string; appId: string };

export interface Rollback {
  rollback: (buildId: string) => Promise<void>;
  message: string | undefined;
  error: string | undefined;
}

export function useRollback(path: AppPath, onDone: () => void): Rollback {
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const rollback = async (buildId: string) => {
    if (!confirm(`Serve build ${buildId} again, with the host names and concurrency bound it was deployed with?`)) return;
    setError(undefined);
    try {
      await ok(api.POST('/v1/projects/{projectId}/apps/{appId}/rollbacks', { params: { path }, body: { build_id: buildId } }));
      setMessage(`Build ${buildId} is active again; the runtime switches to it within moments.`);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return { rollback, message, error };
}

/** A table row's last cell: the rollback button, for any build but the active one. */
export function RollbackCell({ buildId, active, rollback }: { buildId: string; active: boolean; rollback: (buildId: string) => Promise<void> }) {
  return (
    <td>
      {!active && (
        <button type="button" onClick={() => void rollback(buildId)}>
          Roll back to {buildId}
        </button>
      )}
    </td>
  );
}
