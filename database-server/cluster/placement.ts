// Which replica should own a database: rendezvous (highest random weight) hashing over the live replicas. Every
// replica computes the same answer from the same set, a database moves only when its winner joins or leaves, and
// databases spread evenly.
import { createHash } from 'node:crypto';

/** The replica of `replicas` (names) that should own `tenant`; undefined when there is none. */
export function preferredReplica(tenant: string, replicas: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestWeight = '';
  for (const replica of replicas) {
    const weight = createHash('sha256').update(`${tenant}\0${replica}`).digest('hex');
    if (best === undefined || weight > bestWeight) {
      best = replica;
      bestWeight = weight;
    }
  }
  return best;
}
