// The other replicas asked which database a token opens (`GET /v1/token-holders/<sha256>` on their admin APIs):
// each knows the tokens of the databases it serves, so a replica routing a request by token alone learns the
// owner in one round trip instead of reading every database's metadata from the bucket.
import type { ReplicaIdentity } from './lease-store.ts';
import type { AskPeers } from './token-locator.ts';

/** How long a replica's answer is waited for: one that is slow or gone must not hold the request up for long. */
const ANSWER_WITHIN_MS = 2000;

/** Asks every replica `peers` names at once; the first that serves the token answers. */
export function peerTokenHolders(peers: () => readonly ReplicaIdentity[], adminToken: string): AskPeers {
  return async (sha256) => {
    const asked = peers().map(async (peer) => {
      const answer = await fetch(`${peer.adminUrl}/v1/token-holders/${sha256}`, {
        headers: { authorization: `Bearer ${adminToken}` },
        signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      });
      if (!answer.ok) throw new Error(`${peer.name} answered ${answer.status}`);
      const { tenant } = (await answer.json()) as { tenant?: unknown };
      if (typeof tenant !== 'string') throw new Error(`${peer.name} named no database`);
      return tenant;
    });
    return asked.length === 0 ? undefined : Promise.any(asked).catch(() => undefined);
  };
}
