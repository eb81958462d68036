// Which app stopped a workerd shard. workerd runs every isolate of a shard on one thread and cannot say which
// one is running, so the runtime judges from what it saw of the shard's requests. Pure, so the cases are
// table-tested; docs/runtime.md ("Bounded user code") explains the rules.

/** What the entry point saw of one workerd until it was found stuck (or ended). */
export interface StallEvidence {
  /** The requests it had been sent and had not finished: their app and when each was sent. */
  readonly open: ReadonlyArray<{ readonly app: string; readonly sentAt: number }>;
  /** App key → when its last request there finished. */
  readonly ended: ReadonlyMap<string, number>;
  /** The last moment the workerd showed it was running: any byte of an answer, a health answer. */
  readonly lastAlive: number;
}

export interface BlameBounds {
  /**
   * A request sent later than this after the workerd's last sign of life never ran: the thread was stuck by
   * then (it answered nothing, not even the health check it had been sent). Two health-check intervals.
   */
  readonly lateMs: number;
  /**
   * An app whose answer ended at most this long before the last sign of life (its answer was that last sign)
   * may have gone on computing right after it (`ctx.waitUntil`): it is suspected too.
   */
  readonly endedGraceMs: number;
}

/** `blame`: one app could have been running; `ambiguous`: several could (none is blamed); `unattributed`: none could. */
export type Verdict = { readonly kind: 'blame'; readonly app: string } | { readonly kind: 'ambiguous'; readonly apps: readonly string[] } | { readonly kind: 'unattributed' };

/**
 * The apps whose code may have been running when the shard stopped: those with a request in flight that was
 * sent before the shard stopped answering (an app awaiting I/O is as suspect as one computing: from outside
 * they look alike), and the one whose answer was the last thing the shard sent (work after the answer).
 */
export function suspects(evidence: StallEvidence, bounds: BlameBounds): string[] {
  const apps = new Set<string>();
  const cutoff = evidence.lastAlive + bounds.lateMs;
  for (const flight of evidence.open) if (flight.app && flight.sentAt <= cutoff) apps.add(flight.app);
  for (const [app, at] of evidence.ended) if (at >= evidence.lastAlive - bounds.endedGraceMs) apps.add(app);
  return [...apps].sort();
}

/**
 * Blames an app only when it is the one suspect. Several suspects are not blamed: the runtime puts them on
 * probation, taking turns on their shard (`Probation`), so that the next stall has one suspect.
 */
export function attribute(evidence: StallEvidence, bounds: BlameBounds): Verdict {
  const apps = suspects(evidence, bounds);
  if (apps.length === 1) return { kind: 'blame', app: apps[0]! };
  if (apps.length === 0) return { kind: 'unattributed' };
  return { kind: 'ambiguous', apps };
}
