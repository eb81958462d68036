/** A tenant as cw-db describes it (its admin API's `GET /v1/tenants/{tenant}`). */
export interface EngineTenant {
  tenant: string;
  created_at: string;
  durability: 'async' | 'sync';
  size_bytes: number;
  rows_read: number;
  rows_written: number;
  last_write_at: string | null;
  restore_window: { earliest: string; latest: string } | null;
  /** The limits the tenant runs under. */
  limits: { statement_timeout_ms: number; max_size_bytes: number; rows_read_per_day: number; rows_written_per_day: number };
  /** The current UTC day's counts (day: YYYY-MM-DD), which the daily quotas count. */
  today: { day: string; rows_read: number; rows_written: number };
  /**
   * The quota the tenant reached (the one refusing most), or null: its own, or the storage bound of its project
   * on the replica or of the replica's disk, which stopped it growing (then `growth_frozen` says why).
   */
  limit_reached: 'rows_read_per_day' | 'rows_written_per_day' | 'max_size_bytes' | 'project_storage_quota' | 'disk_reserve' | null;
  /** Why the database may not grow now, though under its own size quota (its writes that need room fail with this message). */
  growth_frozen?: { reason: 'project_storage_quota' | 'disk_reserve'; message: string };
  /** With several cw-db replicas: the one that owns the database (holds its lease). */
  replica?: string;
  /** Whose share of cw-db it uses (`EngineTenantRequest.project`); absent for a database created before cw-db knew it. */
  project?: string;
  /** Whether its connection is open now: an idle database is closed until its next request. */
  open?: boolean;
}

/** What the controller asks cw-db a tenant to be. */
export interface EngineTenantRequest {
  tokens: { sha256: string; read_only?: boolean; expires_at?: string }[];
  durability: 'async' | 'sync';
  /**
   * Whose share of cw-db the database uses: its shards' turns, open databases, memory and the storage quota are
   * shared out by this key. The operator sends its project's account (`projectAccount`: the user who created the
   * project, else the project), so one user's projects share as one tenant.
   */
  project?: string;
  restore_from?: { tenant: string; at: string };
  /** What the database asks for; cw-db's defaults for what is left out. */
  limits?: { statement_timeout_ms?: number; max_size_bytes?: number; rows_read_per_day?: number; rows_written_per_day?: number };
}

/** cw-db could not be reached, or failed; retry later. The message names no secret. */
export class EngineUnavailableError extends Error {
  override readonly name = 'EngineUnavailableError';
}

/** cw-db refused a restore: the time is outside the source's restore window (the message says which). */
export class RestorePointError extends Error {
  override readonly name = 'RestorePointError';
}

/** cw-db refused the limits asked for: more than it allows (the message names the maximum). Nothing changed. */
export class LimitOutOfRangeError extends Error {
  override readonly name = 'LimitOutOfRangeError';
}

/** What an in-place restore answers: the time restored to, and the restore point that undoes it (ISO times). */
export interface EngineRestore {
  restored_to: string;
  undo_point: string;
}

/** cw-db has no such tenant. */
export class EngineTenantNotFoundError extends Error {
  override readonly name = 'EngineTenantNotFoundError';
}

/** The operator's client of cw-db's admin API: the only code that calls the database engine. */
export interface DatabaseEngine {
  ensure(tenant: string, request: EngineTenantRequest): Promise<EngineTenant & { created: boolean }>;
  describe(tenant: string): Promise<EngineTenant | undefined>;
  delete(tenant: string): Promise<void>;
  /**
   * Restores the tenant in place to its state at `at` (ISO time). The same `request` again answers the restore it
   * did, without restoring twice.
   * @throws RestorePointError outside its restore window, EngineTenantNotFoundError, EngineUnavailableError
   */
  restoreInPlace(tenant: string, at: string, request: string): Promise<EngineRestore>;
}

/** A {@link DatabaseEngine} over HTTP: `adminUrl` is cw-db's admin listener, `token` its CW_DB_ADMIN_TOKEN. */
export function databaseEngineClient(options: { adminUrl: string; token: string; timeoutMs?: number }): DatabaseEngine {
  const base = options.adminUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 120_000;
  const call = async (method: string, tenant: string, body?: unknown, action = ''): Promise<{ status: number; json: unknown }> => {
    let response: Response;
    try {
      response = await fetch(`${base}/v1/tenants/${encodeURIComponent(tenant)}${action}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new EngineUnavailableError('the database engine cannot be reached');
    }
    const text = await response.text();
    const json: unknown = text ? JSON.parse(text) : undefined;
    if (response.status >= 500 || response.status === 401) throw new EngineUnavailableError(`the database engine answered ${response.status}`);
    return { status: response.status, json };
  };
  return {
    async ensure(tenant, request) {
      const { status, json } = await call('PUT', tenant, request);
      if (status === 422) {
        const refusal = json as { code?: string; message?: string } | undefined;
        if (refusal?.code === 'LIMIT_OUT_OF_RANGE') throw new LimitOutOfRangeError(refusal.message ?? 'the limits are out of range');
        throw new RestorePointError(refusal?.message ?? 'the restore point is not available');
      }
      if (status !== 200 && status !== 201) throw new EngineUnavailableError(`the database engine answered ${status}`);
      return json as EngineTenant & { created: boolean };
    },
    async describe(tenant) {
      const { status, json } = await call('GET', tenant);
      if (status === 404) return undefined;
      if (status !== 200) throw new EngineUnavailableError(`the database engine answered ${status}`);
      return json as EngineTenant;
    },
    async restoreInPlace(tenant, at, request) {
      const { status, json } = await call('POST', tenant, { at, request }, '/restore');
      if (status === 404) throw new EngineTenantNotFoundError(`the database engine has no tenant ${tenant}`);
      if (status === 422) throw new RestorePointError((json as { message?: string } | undefined)?.message ?? 'the restore point is not available');
      if (status !== 200) throw new EngineUnavailableError(`the database engine answered ${status}`);
      return json as EngineRestore;
    },
    async delete(tenant) {
      const { status } = await call('DELETE', tenant);
      if (status !== 204 && status !== 404) throw new EngineUnavailableError(`the database engine answered ${status}`);
    },
  };
}
