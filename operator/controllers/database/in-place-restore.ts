import { RESTORE_ANNOTATION, restoreRequestTime, type DatabaseLastRestore } from '../../../src/apis/v1alpha1/database.ts';
import { EngineTenantNotFoundError, RestorePointError, type DatabaseEngine } from '../../../src/platform/databases/engine-client.ts';

/**
 * Answers `request` by restoring the served tenant in place through cw-db (which answers a request it already did
 * again without restoring twice, should the status write after it have failed). A refusal (outside the window, not a
 * time) is an answer too: the request is echoed with it and nothing changed. EngineUnavailableError is thrown
 * (the request stays unanswered and is retried).
 */
export async function restoreInPlace(engine: DatabaseEngine, tenant: string, request: string, now: Date): Promise<DatabaseLastRestore> {
  const handledAt = now.toISOString();
  const at = restoreRequestTime(request);
  if (at === undefined) {
    return { request, outcome: 'InvalidRequest', message: `${RESTORE_ANNOTATION} must be an RFC 3339 time, optionally followed by #<request id>.`, handledAt };
  }
  try {
    const done = await engine.restoreInPlace(tenant, new Date(at).toISOString(), request);
    return {
      request,
      outcome: 'Restored',
      message: `Restored in place to ${done.restored_to}; restore to ${done.undo_point} to undo.`,
      restoredTo: done.restored_to,
      undoPoint: done.undo_point,
      handledAt,
    };
  } catch (err) {
    if (err instanceof RestorePointError || err instanceof EngineTenantNotFoundError) return { request, outcome: 'RestorePointUnavailable', message: err.message, handledAt };
    throw err;
  }
}
