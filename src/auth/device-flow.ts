import type { Principal } from './authenticate.ts';
import { formatUserCode, generateDeviceCode, generateUserCode, hashDeviceCode, normalizeUserCode } from './device-code.ts';
import { isExpired, pollDeviceToken } from './device-token-poll.ts';
import { ConflictError, NotFoundError, UnavailableError } from '../errors.ts';
import { assertCanGrant } from './issue-token.ts';
import type { DeviceTokenResponse } from './oauth-error.ts';
import type { DeviceGrantState, DeviceGrantStore, StoredDeviceGrant, TokenStore } from './ports.ts';
import { knownScopes, parseScopes, type Scope } from './scopes.ts';

/** Sign-ins one process starts within one code lifetime at most, unless configured otherwise. */
export const DEFAULT_MAX_STARTS_PER_LIFETIME = 1000;
/** How long a device authorization can be approved and redeemed (RFC 8628 `expires_in`). */
export const DEVICE_CODE_LIFETIME_SECONDS = 900;
/** The polling interval handed out at the start (RFC 8628 `interval`; also its default). */
export const INITIAL_POLL_INTERVAL_SECONDS = 5;
// A compare-and-swap loses only to a concurrent poll or a second decision; a few rounds settle it.
const MAX_ATTEMPTS = 3;

/** The device authorization response (RFC 8628 §3.2). */
export interface DeviceAuthorizationResponse {
  readonly device_code: string;
  /** `XXXX-XXXX`. */
  readonly user_code: string;
  readonly verification_uri: string;
  /** The verification URI with the user code filled in, for a link or a QR code. */
  readonly verification_uri_complete: string;
  readonly expires_in: number;
  readonly interval: number;
}

/** What the approval page shows before the user decides. */
export interface DeviceAuthorizationRequest {
  /** `XXXX-XXXX`. */
  readonly userCode: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date;
}

/** Collaborators of the device flow. */
export interface DeviceFlowOptions {
  readonly grants: DeviceGrantStore;
  readonly tokens: Pick<TokenStore, 'createToken' | 'getUser' | 'listTokens' | 'deleteToken'>;
  /** The page where users enter the code, e.g. `https://console.example.com/device`. */
  readonly verificationUri: string;
  /** Lifetime of tokens minted by the flow; absent: they do not expire, like personal access tokens. */
  readonly tokenLifetimeSeconds?: number | undefined;
  /**
   * Sign-ins this process starts within one code lifetime at most (default {@link DEFAULT_MAX_STARTS_PER_LIFETIME}). Starting one is public and
   * stores a grant in the cluster: past this, `start` answers 503 rather than let anyone fill the control
   * plane with grants nobody answers.
   */
  readonly maxStartsPerLifetime?: number | undefined;
}

/** The OAuth 2.0 device authorization grant (RFC 8628), e.g. for `cw login`. */
export interface DeviceFlow {
  /**
   * Starts an authorization for `scopes` (a list or a space-separated OAuth `scope` parameter).
   * @throws BadRequestError for unknown or missing scopes (problem details, like every non-poll route).
   */
  start(scopes: string | readonly string[], now: Date): Promise<DeviceAuthorizationResponse>;
  /**
   * The pending request behind a user code, for the approval page.
   * @throws NotFoundError for an unknown or expired code; ConflictError when it was already answered.
   */
  inspect(userCode: string, now: Date): Promise<DeviceAuthorizationRequest>;
  /**
   * The signed-in user approves; the token minted on the next poll acts as this user with the requested
   * scopes. Repeating one's own approval is a no-op.
   * `reviewed`: the scopes the user was shown ({@link inspect}); when given, a request for any others is
   * refused, so what is approved is what was seen.
   * @throws NotFoundError for an unknown or expired code; ForbiddenError when the principal lacks
   *   `tokens:write` or a requested scope; ConflictError when it was answered otherwise already, or asks for
   *   other scopes than `reviewed`.
   */
  approve(userCode: string, principal: Principal, now: Date, reviewed?: readonly string[]): Promise<void>;
  /**
   * The signed-in user denies; any signed-in user may refuse a request they did not start.
   * @throws NotFoundError for an unknown or expired code; ConflictError when it was answered otherwise.
   */
  deny(userCode: string, principal: Principal, now: Date): Promise<void>;
  /**
   * The device's token request. Returns, never throws for protocol outcomes: the token (exactly once) or
   * an OAuth error — `authorization_pending`, `slow_down`, `access_denied`, `expired_token`, or
   * `invalid_grant` for unknown device codes and for every poll after the one that got the token.
   * `invalid_grant` rather than `expired_token` there because the grant was used up, not timed out: RFC
   * 6749 §4.1.2/§5.2 treat a reused one-time grant as invalid, and `expired_token` would wrongly suggest
   * the device could simply start over and get a second token for the same sign-in.
   */
  poll(deviceCode: string, now: Date): Promise<DeviceTokenResponse>;
}

/**
 * The device flow over the given stores.
 * @throws TypeError at once for a verification URI that is not an absolute http(s) URL, rather than on
 *   every start.
 */
export function createDeviceFlow(options: DeviceFlowOptions): DeviceFlow {
  if (!URL.canParse(options.verificationUri) || !/^https?:$/.test(new URL(options.verificationUri).protocol)) {
    const shown = JSON.stringify(options.verificationUri);
    throw new TypeError(`the device verification URI must be an absolute http(s) URL, not ${shown}`);
  }
  const recentStarts = new StartWindow(options.maxStartsPerLifetime ?? DEFAULT_MAX_STARTS_PER_LIFETIME, DEVICE_CODE_LIFETIME_SECONDS * 1000);
  return {
    start: async (scopes, now) => {
      // Room is taken before the grant is stored, so concurrent starts cannot pass the bound together; a
      // refused request (unknown scopes) gives it back.
      const taken = recentStarts.take(now);
      try {
        return await start(options, scopes, now);
      } catch (err) {
        recentStarts.giveBack(taken);
        throw err;
      }
    },
    inspect: async (userCode, now) => {
      const { grant } = await findDecidable(options.grants, userCode, now);
      if (grant.state.kind !== 'pending') throw answeredAlready();
      const { userCode: code, scopes, expiresAt } = grant;
      return { userCode: formatUserCode(code), scopes: knownScopes(scopes), expiresAt };
    },
    approve: (userCode, principal, now, reviewed) => decide(options.grants, userCode, principal, 'approved', now, reviewed),
    deny: (userCode, principal, now) => decide(options.grants, userCode, principal, 'denied', now),
    poll: (deviceCode, now) => pollDeviceToken(options, deviceCode, now),
  };
}

/** The instants of the sign-ins started within the last `windowMs`, at most `max` of them. */
class StartWindow {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #starts: number[] = [];

  constructor(max: number, windowMs: number) {
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Counts a start at `now` and answers its instant; throws `UnavailableError` when the window is full. */
  take(now: Date): number {
    const t = now.getTime();
    while (this.#starts.length > 0 && (this.#starts[0] as number) <= t - this.#windowMs) this.#starts.shift();
    if (this.#starts.length >= this.#max) {
      const retryAfter = Math.max(1, Math.ceil(((this.#starts[0] as number) + this.#windowMs - t) / 1000));
      throw new UnavailableError('Too many device sign-ins are waiting to be answered; try again in a few minutes.', retryAfter);
    }
    this.#starts.push(t);
    return t;
  }

  /** Uncounts a start `take` counted, for one that stored nothing. */
  giveBack(instant: number): void {
    const at = this.#starts.lastIndexOf(instant);
    if (at !== -1) this.#starts.splice(at, 1);
  }
}

async function start(options: DeviceFlowOptions, requested: string | readonly string[], now: Date): Promise<DeviceAuthorizationResponse> {
  const scopes = parseScopes(requested);
  // With n live grants a new user code collides with probability n / 20⁸; retrying beats a longer code.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const deviceCode = generateDeviceCode();
    const userCode = generateUserCode();
    const created = await options.grants.create({
      deviceCodeHash: hashDeviceCode(deviceCode),
      userCode,
      scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + DEVICE_CODE_LIFETIME_SECONDS * 1000),
      intervalSeconds: INITIAL_POLL_INTERVAL_SECONDS,
      state: { kind: 'pending' },
    });
    if (!created) continue;
    const complete = new URL(options.verificationUri);
    complete.searchParams.set('user_code', formatUserCode(userCode));
    return {
      device_code: deviceCode,
      user_code: formatUserCode(userCode),
      verification_uri: options.verificationUri,
      verification_uri_complete: complete.toString(),
      expires_in: DEVICE_CODE_LIFETIME_SECONDS,
      interval: INITIAL_POLL_INTERVAL_SECONDS,
    };
  }
  throw new Error('could not allocate an unused device user code');
}

async function decide(grants: DeviceGrantStore, userCode: string, principal: Principal, decision: 'approved' | 'denied', now: Date, reviewed?: readonly string[]): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const { grant, revision } = await findDecidable(grants, userCode, now);
    const { state } = grant;
    if (state.kind !== 'pending') {
      // A double-click or a retried request must not fail; a different answer must not overwrite the first.
      const repeated = state.userId === principal.userId && (decision === 'approved' ? state.kind === 'approved' || state.kind === 'redeemed' : state.kind === 'denied');
      if (repeated) return;
      throw answeredAlready();
    }
    if (decision === 'approved') {
      const requested = knownScopes(grant.scopes);
      if (reviewed && !sameScopes(requested, reviewed)) {
        throw new ConflictError(`This sign-in request asks for ${requested.join(' ')}, not the scopes reviewed; review it again before approving.`);
      }
      assertCanGrant(principal, requested);
    }
    const answer: DeviceGrantState =
      decision === 'approved'
        ? {
            kind: 'approved',
            userId: principal.userId,
            ...(principal.userUid ? { userUid: principal.userUid } : {}),
            ...(principal.expiresAt && !principal.session ? { notAfter: principal.expiresAt } : {}),
          }
        : { kind: 'denied', userId: principal.userId };
    if (await grants.update({ ...grant, state: answer }, revision)) return;
  }
  throw new ConflictError('This sign-in request changed while it was being answered; try again.');
}

/** The grant behind a user code a person typed, if it can still be answered. */
async function findDecidable(grants: DeviceGrantStore, userCode: string, now: Date): Promise<StoredDeviceGrant> {
  const code = normalizeUserCode(userCode);
  const stored = code === undefined ? undefined : await grants.findByUserCode(code);
  // Unknown and expired read the same (no sign-in waits under this code): the person's next step is the
  // same, to start over on the device.
  if (!stored || isExpired(stored.grant, now)) {
    throw new NotFoundError('This code is not valid or has expired. Start the sign-in on your device again.');
  }
  return stored;
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(b);
  return set.size === new Set(a).size && a.every((scope) => set.has(scope));
}

function answeredAlready(): ConflictError {
  return new ConflictError('This sign-in request has already been answered.');
}
