// The repository operations (`GET /api/ops`): what each does and whether it writes. Maintenance runs them on
// its own schedule; `POST /api/ops/{op}` runs one now, as a task.

export type OperationId = 'checkpoint' | 'compact' | 'gc' | 'fsck' | 'sync';

export interface OperationInfo {
  readonly id: OperationId;
  readonly label: string;
  readonly description: string;
  /** Whether it changes the bucket (every operation needs the write scope to be run on demand). */
  readonly writes: boolean;
}

export const OPERATIONS: readonly OperationInfo[] = [
  {
    id: 'checkpoint',
    label: 'Checkpoint',
    description: 'Folds the log into a checkpoint at the head seq and retires log entries that a checkpoint older than the log retention covers and the events cursor has passed.',
    writes: true,
  },
  {
    id: 'compact',
    label: 'Compact packs',
    description: 'Merges small packs (all into one below 64 MiB, geometrically above) and publishes the new pack set by compare-and-swap; superseded packs stay in the bucket for the grace period.',
    writes: true,
  },
  {
    id: 'gc',
    label: 'Collect garbage',
    description: 'Deletes bucket objects that neither the manifest, a kept checkpoint nor the grace period references: retired and abandoned packs, folded log entries, old checkpoints.',
    writes: true,
  },
  {
    id: 'fsck',
    label: 'Check integrity',
    description: 'Runs git fsck over the published state and records the result (service_repo_missing_objects).',
    writes: false,
  },
  {
    id: 'sync',
    label: 'Sync this instance',
    description: "Brings this instance's cached copy of the repository up to the bucket's head.",
    writes: false,
  },
];

export function isOperationId(id: string): id is OperationId {
  return OPERATIONS.some((op) => op.id === id);
}

/** What a running unit reports, and how it learns that it must stop. */
export interface UnitContext {
  /**
   * Aborted when the instance drains or the maintainer's unit deadline passes (its reason says which): the unit stops
   * at its next step and throws `UnitInterruptedError`.
   */
  readonly signal: AbortSignal;
  /** Progress of the unit's current phase. */
  progress(done: number, total: number, phase: string): void;
  /** One line of the unit's log (the task keeps the tail). */
  log(line: string): void;
}

/** A unit's answer: one sentence saying what it did. */
export interface UnitResult {
  readonly summary: string;
}

/**
 * The unit stopped because its signal aborted: the instance is draining, or the maintainer's unit deadline passed.
 * Nothing half-done is visible, and the next pass redoes it. `reason` is the signal's (its message says which);
 * without one, the drain is assumed.
 */
export class UnitInterruptedError extends Error {
  override readonly name = 'UnitInterruptedError';
  constructor(reason?: unknown) {
    super(`interrupted: ${reason instanceof Error ? reason.message : 'the instance is shutting down'}; the next maintenance pass runs it again`);
  }
}

/** A quiet context, for units run outside a task (tests, the CLI). */
export function silentContext(signal: AbortSignal = new AbortController().signal): UnitContext {
  return { signal, progress: () => {}, log: () => {} };
}

/** Runs the bucket-side operations (all but `sync`, which is this instance's cache) on one repository. */
export interface MaintenanceRunner {
  run(repo: string, op: Exclude<OperationId, 'sync'>, ctx: UnitContext): Promise<UnitResult>;
}
