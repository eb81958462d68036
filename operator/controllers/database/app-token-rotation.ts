import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { SecretObject } from '../../../src/kube/index.ts';

/**
 * When app tokens are replaced and how long the replaced ones are still accepted. The overlap is what lets a
 * rotation go unnoticed: cw-db accepts both sets while the runtime rolls the apps out with the new tokens, and
 * requests already running finish with the old ones.
 */
export interface RotationPolicy {
  /** Age of a set of app tokens at which it is replaced (CW_DB_APP_TOKEN_ROTATION_SECONDS, default a day). */
  readonly periodMs: number;
  /** How long the replaced set is still accepted (CW_DB_APP_TOKEN_OVERLAP_SECONDS, default 15 minutes). */
  readonly overlapMs: number;
}

export const DEFAULT_ROTATION: RotationPolicy = { periodMs: 86_400_000, overlapMs: 900_000 };

/**
 * A rotation asked now, on the Database (`kubectl annotate database orders cloudwright.dev/rotate-app-tokens=<any
 * new value>`); the Secret records the value it handled under the same key, so a value is handled once.
 */
export const ROTATE_REQUEST = 'cloudwright.dev/rotate-app-tokens';
/** On the Secret: when its tokens were minted (absent on a Secret minted before rotation: its creation time). */
export const MINTED_AT = 'cloudwright.dev/app-tokens-minted-at';
/** On the Secret: the SHA-256 of the replaced full and read-only tokens (`<full>,<read-only>`): hashes only, never a token. */
export const PREVIOUS_HASHES = 'cloudwright.dev/previous-app-token-hashes';
/** On the Secret: until when the replaced tokens are accepted. */
export const PREVIOUS_UNTIL = 'cloudwright.dev/previous-app-tokens-until';

/** Why the Secret's tokens are to be replaced now: their age, a request on the Database, or not at all. */
export function rotationDue(secret: SecretObject, db: Database, policy: RotationPolicy, now: Date): 'period' | 'request' | undefined {
  const asked = db.metadata?.annotations?.[ROTATE_REQUEST];
  if (asked && asked !== secret.metadata?.annotations?.[ROTATE_REQUEST]) return 'request';
  const minted = Date.parse(secret.metadata?.annotations?.[MINTED_AT] ?? secret.metadata?.creationTimestamp ?? '');
  return Number.isNaN(minted) || now.getTime() - minted < policy.periodMs ? undefined : 'period';
}

/** The annotations of a Secret whose first tokens are minted at `now`: any rotation asked so far is done by that. */
export function mintedAnnotations(db: Database, now: Date): Record<string, string> {
  const asked = db.metadata?.annotations?.[ROTATE_REQUEST];
  return { [MINTED_AT]: now.toISOString(), ...(asked ? { [ROTATE_REQUEST]: asked } : {}) };
}

/** The annotations of the Secret once its tokens with hashes `replaced` are rotated out at `now`. */
export function rotatedAnnotations(secret: SecretObject, db: Database, replaced: { full: string; readOnly: string }, policy: RotationPolicy, now: Date): Record<string, string> {
  const asked = db.metadata?.annotations?.[ROTATE_REQUEST];
  return {
    ...secret.metadata?.annotations,
    [MINTED_AT]: now.toISOString(),
    [PREVIOUS_HASHES]: `${replaced.full},${replaced.readOnly}`,
    [PREVIOUS_UNTIL]: new Date(now.getTime() + policy.overlapMs).toISOString(),
    ...(asked ? { [ROTATE_REQUEST]: asked } : {}),
  };
}

/** The replaced tokens' hashes while they are still accepted; undefined once their overlap is over. */
export function previousTokens(secret: SecretObject, now: Date): { full: string; readOnly: string; until: string } | undefined {
  const annotations = secret.metadata?.annotations ?? {};
  const until = annotations[PREVIOUS_UNTIL];
  const [full, readOnly] = (annotations[PREVIOUS_HASHES] ?? '').split(',');
  if (!until || !full || !readOnly || !(Date.parse(until) > now.getTime())) return undefined;
  return { full, readOnly, until };
}
