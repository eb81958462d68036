// When a lease counts as held, and when as expired, without trusting any two clocks to agree on the time.
//
// The holder counts from the moment it SENT its last successful write: it holds until that plus the lease
// duration, less a margin. Another replica counts from the moment it first SAW that version (a listing after the
// write landed, so later than the send): it may take over once the same version was in sight for the whole
// duration. The holder's end therefore comes first on any two clocks that run at about the same rate, whatever
// they read; the margin covers rates that differ a little and a holder's own delay in acting on its deadline.

/** The holder's deadline: after it, it neither ships nor acknowledges (ms on its own monotonic clock). */
export function holderDeadline(sentAt: number, leaseMs: number): number {
  return sentAt + leaseMs - marginMs(leaseMs);
}

/** A fifth of the lease, at least 500 ms, at most 5 s. */
export function marginMs(leaseMs: number): number {
  return Math.min(5000, Math.max(500, Math.floor(leaseMs / 5)));
}

/** What one replica saw of another's lease: the version, and since when (its own monotonic clock). */
export interface Sighting {
  readonly etag: string;
  readonly since: number;
}

/** The sighting after seeing `etag` at `now`: unchanged if it is the same version, else a new one from now. */
export function sight(previous: Sighting | undefined, etag: string, now: number): Sighting {
  return previous?.etag === etag ? previous : { etag, since: now };
}

/**
 * Whether a version seen unchanged from `sighting.since` until `seenAt`, the latest listing that showed it, has
 * expired. Not the time now: what was not looked at since proves nothing (the holder may have beaten meanwhile).
 */
export function expired(sighting: Sighting, seenAt: number, leaseMs: number): boolean {
  return seenAt - sighting.since >= leaseMs;
}
