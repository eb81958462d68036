import { hashDeviceCode } from './device-code.ts';
import { earliest, mintToken } from './issue-token.ts';
import { oauthError, type DeviceTokenResponse } from './oauth-error.ts';
import type { DeviceGrant, DeviceGrantState, DeviceGrantStore, StoredDeviceGrant, TokenStore, UserRecord } from './ports.ts';
import { countActiveTokens, MAX_ACTIVE_TOKENS_PER_USER, pruneInactiveTokensQuietly } from './personal-tokens.ts';
import { knownScopes } from './scopes.ts';
import { tokenHashesEqual } from './token.ts';

// The device flow's token endpoint (RFC 8628 §3.4–3.5): what one poll with a device code answers.

/** What every `slow_down` adds to the interval (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_SECONDS = 5;
/**
 * How much earlier than the interval a poll may arrive and still count as on time. A client that sends
 * exactly every 5 s sees its requests arrive 4.8 s apart when latency varies; without leeway it would be
 * told to slow down again and again.
 */
export const POLL_LEEWAY_MS = 1_000;

/** What the token endpoint needs; a subset of `DeviceFlowOptions`. */
export interface PollOptions {
  readonly grants: DeviceGrantStore;
  readonly tokens: Pick<TokenStore, 'createToken' | 'getUser' | 'listTokens' | 'deleteToken'>;
  readonly tokenLifetimeSeconds?: number | undefined;
}

// A compare-and-swap loses only to a concurrent poll or decision; a few rounds settle it.
const MAX_ATTEMPTS = 3;

/**
 * Answers one poll of the token endpoint; see `DeviceFlow.poll`. Exported for `createDeviceFlow` only.
 */
export async function pollDeviceToken(options: PollOptions, deviceCode: string, now: Date): Promise<DeviceTokenResponse> {
  const hash = hashDeviceCode(deviceCode);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const stored = await options.grants.findByDeviceCodeHash(hash);
    if (!stored || !tokenHashesEqual(stored.grant.deviceCodeHash, hash)) {
      return oauthError('invalid_grant', 'The device code is not valid.');
    }
    const { grant, revision } = stored;
    const { state } = grant;
    // Checked before expiry so that a used grant answers the same whenever it is polled again.
    if (state.kind === 'redeemed') {
      return oauthError('invalid_grant', 'The device code was already exchanged for a token.');
    }
    if (isExpired(grant, now)) return oauthError('expired_token', 'The device code has expired; start a new sign-in.');
    if (state.kind === 'denied') return oauthError('access_denied', 'The sign-in request was denied.');
    if (state.kind === 'approved') {
      const issued = await redeem(options, stored, state, now);
      if (issued) return issued;
      continue;
    }
    const last = grant.lastPolledAt?.getTime();
    if (last !== undefined && now.getTime() - last < grant.intervalSeconds * 1000 - POLL_LEEWAY_MS) {
      const intervalSeconds = grant.intervalSeconds + SLOW_DOWN_STEP_SECONDS;
      // Losing this race means another poll arrived at the same time, which is too fast all the same.
      await options.grants.update({ ...grant, intervalSeconds, lastPolledAt: now }, revision);
      return oauthError('slow_down', `Polling too fast: wait at least ${intervalSeconds} seconds between requests.`);
    }
    if (await options.grants.update({ ...grant, lastPolledAt: now }, revision)) {
      return oauthError('authorization_pending', 'The sign-in request has not been answered yet.');
    }
  }
  return oauthError('slow_down', 'Polling too fast: another request for this device code is in progress.');
}

/**
 * Marks the grant redeemed, then stores the token: in this order, so two racing polls can never both get
 * a token. If storing fails after the mark, the sign-in is lost and the device must start over — a failure
 * that leaves no usable token behind. `undefined` when the mark lost a race.
 */
async function redeem(options: PollOptions, stored: StoredDeviceGrant, approval: Extract<DeviceGrantState, { kind: 'approved' }>, now: Date): Promise<DeviceTokenResponse | undefined> {
  const { grant, revision } = stored;
  const { userId } = approval;
  const lifetime = options.tokenLifetimeSeconds;
  const scopes = knownScopes(grant.scopes);
  // Never past the approving token's own expiry (recorded at approval).
  const expiresAt = earliest(lifetime === undefined ? undefined : new Date(now.getTime() + lifetime * 1000), approval.notAfter);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) return oauthError('expired_token', 'The token that approved this sign-in has expired; start a new sign-in.');
  // Either refusal is final (RFC 8628: a client stops polling on access_denied): the grant is denied.
  const user = await options.tokens.getUser(userId);
  const refusal = await mintRefusal(options.tokens, user, approval, now);
  if (refusal !== undefined) {
    if (!(await options.grants.update({ ...grant, lastPolledAt: now, state: { kind: 'denied', userId } }, revision))) return undefined;
    return oauthError('access_denied', refusal);
  }
  const issued = mintToken(userId, { scopes, description: `Device sign-in on ${now.toISOString().slice(0, 10)}`, expiresAt, userUid: user?.uid }, now);
  const state = { kind: 'redeemed', userId, tokenId: issued.record.id } as const;
  const redeemed: DeviceGrant = { ...grant, lastPolledAt: now, state };
  if (!(await options.grants.update(redeemed, revision))) return undefined;
  await options.tokens.createToken(issued.record);
  await pruneInactiveTokensQuietly(options.tokens, userId, now);
  return {
    status: 200,
    tokenId: issued.record.id,
    body: {
      access_token: issued.token,
      token_type: 'Bearer',
      scope: scopes.join(' '),
      ...(expiresAt === undefined ? {} : { expires_in: Math.floor((expiresAt.getTime() - now.getTime()) / 1000) }),
    },
  };
}

/**
 * Why no token may be minted for `userId` now, checked as it is minted and not only at approval: the user
 * may have been deleted since (a token minted now would outlive the deletion's revocations), or may have
 * reached the cap by other sign-ins. `user`: the approving user as read now (undefined: deleted).
 */
async function mintRefusal(tokens: PollOptions['tokens'], user: UserRecord | undefined, approval: Extract<DeviceGrantState, { kind: 'approved' }>, now: Date): Promise<string | undefined> {
  const { userId } = approval;
  // Another user of the same id (the approver deleted and created again) is not the one who approved.
  if (!user || (approval.userUid !== undefined && user.uid !== undefined && user.uid !== approval.userUid)) return 'The user who approved this sign-in no longer exists.';
  if ((await countActiveTokens(tokens, userId, now)) >= MAX_ACTIVE_TOKENS_PER_USER) {
    return `The approving user holds the ${MAX_ACTIVE_TOKENS_PER_USER} active tokens a user may; revoke some, then start a new sign-in.`;
  }
  return undefined;
}

/** A grant is expired from the instant `expiresAt` on: it can then be neither approved nor redeemed. */
export function isExpired(grant: DeviceGrant, now: Date): boolean {
  return now.getTime() >= grant.expiresAt.getTime();
}
