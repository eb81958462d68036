import { DatabaseReasons, RESTORE_ANNOTATION, type Database, type DatabaseState } from '../../apis/v1alpha1/database.ts';
import { findCondition } from '../../conditions/index.ts';
import { unansweredRequest } from '../../kube/request-annotation.ts';

/** A database as lists show it: no token, ever. */
export interface DatabaseView {
  database_id: string;
  name: string;
  status: DatabaseState;
  created_at: string;
  database_url?: string;
  /** The same endpoint over Hrana over WebSocket (`ws://` or `wss://`), for interactive transactions. */
  database_ws_url?: string;
}

/** One database as `GET …/databases/{database}` shows it: the list entry plus usage and the restore window. */
export interface DatabaseDetailView extends DatabaseView {
  durability: 'async' | 'sync';
  /** Why the status is what it is, when it is not ready (the Ready condition's message). */
  status_message?: string;
  /** `size_quota_bytes`: the size quota the engine applies (absent until it serves the database). */
  usage: {
    size_bytes: number;
    size_quota_bytes?: number;
    rows_read: number;
    rows_written: number;
    last_write_at: string | null;
    /** The current UTC day's counts, which the daily quotas count (as the engine last reported them). */
    today?: { day: string; rows_read: number; rows_written: number };
  };
  /** The limits the engine applies (spec.limits, else its defaults); absent until it serves the database. */
  limits?: { statement_timeout_ms: number; max_size_bytes: number; rows_read_per_day?: number; rows_written_per_day?: number };
  /** While a quota refuses statements: which, and the LimitReached condition's message. */
  limit_reached?: { quota: 'max_size_bytes' | 'rows_read_per_day' | 'rows_written_per_day' | 'project_storage_quota' | 'disk_reserve'; message: string };
  /** The usage figures every five minutes over the last day, oldest first. */
  usage_history: { at: string; size_bytes: number; rows_read: number; rows_written: number }[];
  /** The times point-in-time restore can reach; null before the first copy is in the object store. */
  restore_window: { earliest: string; latest: string } | null;
  restored_from?: { database: string; timestamp: string };
  /** The last in-place restore and its outcome (its undo point restores the state before it). */
  last_restore?: { outcome: string; message: string; restored_to?: string; undo_point?: string; handled_at: string };
  /** True while an in-place restore asked for has not been answered. */
  restore_pending?: boolean;
  /** The Secret holding the token the controller minted (databases declared without tokens, as by kubectl). */
  token_secret?: string;
}

export function databaseView(db: Database): DatabaseView {
  return {
    database_id: db.status?.databaseId ?? '',
    name: db.metadata?.name ?? '',
    status: db.metadata?.deletionTimestamp ? 'deleting' : (db.status?.state ?? 'provisioning'),
    created_at: db.metadata?.creationTimestamp ?? '',
    ...(db.status?.url ? { database_url: db.status.url, database_ws_url: webSocketUrl(db.status.url) } : {}),
  };
}

export function databaseDetailView(db: Database): DatabaseDetailView {
  const view = databaseView(db);
  const ready = findCondition(db.status?.conditions, 'Ready');
  return {
    ...view,
    durability: db.spec.durability ?? 'async',
    ...(view.status !== 'ready' && ready?.status !== 'True' && ready?.message ? { status_message: ready.message } : {}),
    usage: {
      size_bytes: db.status?.sizeBytes ?? 0,
      ...(db.status?.limits ? { size_quota_bytes: db.status.limits.maxSizeBytes } : {}),
      rows_read: db.status?.rowsRead ?? 0,
      rows_written: db.status?.rowsWritten ?? 0,
      last_write_at: db.status?.lastWriteAt ?? null,
      ...todayField(db),
    },
    usage_history: (db.status?.usageHistory ?? []).map((s) => ({ at: s.at, size_bytes: s.sizeBytes, rows_read: s.rowsRead, rows_written: s.rowsWritten })),
    ...limitsField(db),
    ...limitReachedField(db),
    restore_window: db.status?.restoreWindow ?? null,
    ...(db.spec.restoreFrom ? { restored_from: { database: db.spec.restoreFrom.database, timestamp: db.spec.restoreFrom.timestamp } } : {}),
    ...lastRestoreField(db),
    ...(pendingRestoreRequest(db) !== undefined ? { restore_pending: true } : {}),
    ...(db.status?.tokenSecretName ? { token_secret: db.status.tokenSecretName } : {}),
  };
}

function todayField(db: Database): Pick<DatabaseDetailView['usage'], 'today'> {
  const today = db.status?.today;
  return today ? { today: { day: today.day, rows_read: today.rowsRead, rows_written: today.rowsWritten } } : {};
}

function limitsField(db: Database): Pick<DatabaseDetailView, 'limits'> {
  const limits = db.status?.limits;
  if (!limits) return {};
  return {
    limits: {
      statement_timeout_ms: limits.statementTimeoutMs,
      max_size_bytes: limits.maxSizeBytes,
      ...(limits.rowsReadPerDay === undefined ? {} : { rows_read_per_day: limits.rowsReadPerDay }),
      ...(limits.rowsWrittenPerDay === undefined ? {} : { rows_written_per_day: limits.rowsWrittenPerDay }),
    },
  };
}

const QUOTA_OF_REASON = {
  [DatabaseReasons.SizeQuotaReached]: 'max_size_bytes',
  [DatabaseReasons.RowsReadQuotaReached]: 'rows_read_per_day',
  [DatabaseReasons.RowsWrittenQuotaReached]: 'rows_written_per_day',
  [DatabaseReasons.ProjectStorageQuotaReached]: 'project_storage_quota',
  [DatabaseReasons.DiskReserveReached]: 'disk_reserve',
} as const;

function limitReachedField(db: Database): Pick<DatabaseDetailView, 'limit_reached'> {
  const reached = findCondition(db.status?.conditions, 'LimitReached');
  if (reached?.status !== 'True' || !(reached.reason in QUOTA_OF_REASON)) return {};
  return { limit_reached: { quota: QUOTA_OF_REASON[reached.reason as keyof typeof QUOTA_OF_REASON], message: reached.message ?? '' } };
}

/** The restore annotation's value while the controller has not answered it. */
export function pendingRestoreRequest(db: Database): string | undefined {
  return unansweredRequest(db, RESTORE_ANNOTATION, db.status?.lastRestore?.request);
}

function lastRestoreField(db: Database): Pick<DatabaseDetailView, 'last_restore'> {
  const last = db.status?.lastRestore;
  if (!last) return {};
  return {
    last_restore: {
      outcome: last.outcome,
      message: last.message,
      ...(last.restoredTo ? { restored_to: last.restoredTo } : {}),
      ...(last.undoPoint ? { undo_point: last.undoPoint } : {}),
      handled_at: last.handledAt,
    },
  };
}

/** cw-db serves Hrana over WebSocket on the same URL: `http` becomes `ws`, `https` becomes `wss`. */
export function webSocketUrl(url: string): string {
  return url.replace(/^http(s?):/, 'ws$1:');
}
