import { beforeEach, describe, expect, it } from 'vitest';
import { authenticate, type Principal } from './authenticate.ts';
import { hashDeviceCode } from './device-code.ts';
import { createDeviceFlow, type DeviceFlow, type DeviceFlowOptions } from './device-flow.ts';
import { ForbiddenError } from './errors.ts';
import { MemoryDeviceGrantStore } from './memory-device-grant-store.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import { createPersonalToken, MAX_ACTIVE_TOKENS_PER_USER, MAX_INACTIVE_TOKENS_KEPT } from './personal-tokens.ts';
import type { DeviceTokenResponse } from './oauth-error.ts';
import type { DeviceGrantStore } from './ports.ts';
import { SCOPE_NAMES, type Scope } from './scopes.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';

const T0 = new Date('2030-06-01T12:00:00Z');
/** The injected clock: `at(s)` is `s` seconds after the authorization started. */
// Rounded: 9.999 * 1000 is 9998.999… in floating point, and a Date would truncate it to 9998 ms.
const at = (seconds: number): Date => new Date(T0.getTime() + Math.round(seconds * 1000));
const VERIFICATION_URI = 'https://console.example.test/device';

const member = (userId: string, scopes: readonly Scope[] = SCOPE_NAMES.filter((s) => s !== 'admin')): Principal => ({
  userId,
  tokenId: 'tok-0000000000000000',
  scopes,
  admin: false,
});
const alice = member('alice');
const bob = member('bob');
const root: Principal = { userId: 'root', tokenId: 'tok-1111111111111111', scopes: SCOPE_NAMES, admin: true };

let tokens: MemoryTokenStore;
let grants: MemoryDeviceGrantStore;
let flow: DeviceFlow;

function setUp(overrides: Partial<DeviceFlowOptions> = {}): void {
  tokens = new MemoryTokenStore({ users: ['alice', 'bob'].map((id) => ({ id, admin: false })).concat({ id: 'root', admin: true }) });
  grants = new MemoryDeviceGrantStore();
  flow = createDeviceFlow({ grants, tokens, verificationUri: VERIFICATION_URI, ...overrides });
}
beforeEach(() => setUp());

/** The `error` of an OAuth error response, or `token` for a success. */
const outcome = (response: DeviceTokenResponse): string => (response.status === 200 ? 'token' : response.body.error);

describe('start', () => {
  it('answers an RFC 8628 device authorization response', async () => {
    const response = await flow.start('apps:read domain:write', T0);
    expect(response).toEqual({
      device_code: expect.stringMatching(/^[0-9A-Za-z]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: VERIFICATION_URI,
      verification_uri_complete: `${VERIFICATION_URI}?user_code=${response.user_code}`,
      expires_in: 900,
      interval: 5,
    });
  });

  it.each(['/device', 'ftp://example.test/device', 'not a url'])('refuses the verification URI %j up front', (uri) => {
    expect(() => createDeviceFlow({ grants, tokens, verificationUri: uri })).toThrow(TypeError);
  });

  it('stores only the hash of the device code', async () => {
    const { device_code, user_code } = await flow.start(['apps:read'], T0);
    const stored = await grants.findByUserCode(user_code.replace('-', ''));
    expect(stored?.grant.deviceCodeHash).toBe(hashDeviceCode(device_code));
    expect(JSON.stringify(stored)).not.toContain(device_code);
  });

  it.each([
    { scopes: ['apps:read', 'apps:fly'], detail: /Unknown scope "apps:fly"/ },
    { scopes: '', detail: /At least one scope is required/ },
  ])('refuses the scopes $scopes', async ({ scopes, detail }) => {
    await expect(flow.start(scopes, T0)).rejects.toThrow(BadRequestError);
    await expect(flow.start(scopes, T0)).rejects.toThrow(detail);
  });

  it('retries when a user code is taken, and gives up after five tries', async () => {
    let refusals = 2;
    const flaky: DeviceGrantStore = { ...wrap(grants), create: async (g) => (refusals-- > 0 ? false : grants.create(g)) };
    await expect(createDeviceFlow({ grants: flaky, tokens, verificationUri: VERIFICATION_URI }).start('apps:read', T0)).resolves.toBeDefined();
    const full: DeviceGrantStore = { ...wrap(grants), create: async () => false };
    await expect(createDeviceFlow({ grants: full, tokens, verificationUri: VERIFICATION_URI }).start('apps:read', T0)).rejects.toThrow(/unused device user code/);
  });

  it('refuses (503) more starts within one code lifetime than the process allows, storing nothing for them', async () => {
    let stored = 0;
    const counting: DeviceGrantStore = { ...wrap(grants), create: async (g) => (stored++, grants.create(g)) };
    flow = createDeviceFlow({ grants: counting, tokens, verificationUri: VERIFICATION_URI, maxStartsPerLifetime: 3 });
    for (const s of [0, 100, 200]) await flow.start('apps:read', at(s));
    // A refused request takes no room: only stored sign-ins count.
    const single = createDeviceFlow({ grants, tokens, verificationUri: VERIFICATION_URI, maxStartsPerLifetime: 1 });
    await expect(single.start('nope', at(0))).rejects.toThrow(BadRequestError);
    await expect(single.start('apps:read', at(0))).resolves.toMatchObject({ interval: 5 });
    const refused = await flow.start('apps:read', at(300)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '600' }, message: expect.stringMatching(/Too many device sign-ins/) });
    expect(stored).toBe(3);
    // The window slides: the first start falls out of it after the code lifetime.
    await expect(flow.start('apps:read', at(900))).resolves.toMatchObject({ expires_in: 900 });
  });

  it('counts concurrent starts before storing them, so together they cannot pass the bound', async () => {
    const two = createDeviceFlow({ grants, tokens, verificationUri: VERIFICATION_URI, maxStartsPerLifetime: 2 });
    const results = await Promise.allSettled([0, 1, 2, 3].map(() => two.start('apps:read', T0)));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
  });
});

type Step =
  | { readonly at: number; readonly poll: string }
  | { readonly at: number; readonly approve: Principal; readonly fails?: RegExp }
  | { readonly at: number; readonly deny: Principal; readonly fails?: RegExp };

describe('poll timelines', () => {
  it.each<{ name: string; steps: Step[] }>([
    {
      name: 'pending, approved, a token exactly once',
      steps: [
        { at: 0, poll: 'authorization_pending' },
        { at: 5, poll: 'authorization_pending' },
        { at: 7, approve: alice },
        { at: 10, poll: 'token' },
        { at: 15, poll: 'invalid_grant' },
        { at: 16, poll: 'invalid_grant' },
        { at: 2000, poll: 'invalid_grant' },
      ],
    },
    {
      name: 'the leeway: 4 s after the last poll is on time, 3.999 s is too fast',
      steps: [
        { at: 0, poll: 'authorization_pending' },
        { at: 4, poll: 'authorization_pending' },
        { at: 7.999, poll: 'slow_down' },
      ],
    },
    {
      name: 'slow_down adds 5 s to the interval each time, measured from the last poll',
      steps: [
        { at: 0, poll: 'authorization_pending' },
        { at: 1, poll: 'slow_down' }, // interval 10
        { at: 9.999, poll: 'slow_down' }, // 8.999 s < 9 s: interval 15
        { at: 23.998, poll: 'slow_down' }, // 13.999 s < 14 s: interval 20
        { at: 42.998, poll: 'authorization_pending' }, // 19 s ≥ 19 s
        { at: 61.997, poll: 'slow_down' }, // a pending poll keeps the interval at 20: 18.999 s is too fast; now 25
        { at: 85.997, poll: 'authorization_pending' }, // 24 s ≥ 24 s (interval 25 after the last slow_down)
      ],
    },
    {
      name: 'an approved grant is handed out even to a hasty poll',
      steps: [
        { at: 0, poll: 'authorization_pending' },
        { at: 0.5, approve: alice },
        { at: 1, poll: 'token' },
      ],
    },
    {
      name: 'denied, then expired',
      steps: [
        { at: 0, poll: 'authorization_pending' },
        { at: 6, deny: bob },
        { at: 10, poll: 'access_denied' },
        { at: 15, poll: 'access_denied' },
        { at: 900, poll: 'expired_token' },
      ],
    },
    {
      name: 'the expiry boundary while pending: expiry wins over slow_down',
      steps: [
        { at: 899.999, poll: 'authorization_pending' },
        { at: 900, poll: 'expired_token' },
        { at: 901, poll: 'expired_token' },
      ],
    },
    {
      name: 'approved in the last millisecond, redeemed too late',
      steps: [
        { at: 899.999, approve: alice },
        { at: 900, poll: 'expired_token' },
      ],
    },
    {
      name: 'approving at expiry is refused',
      steps: [
        { at: 900, approve: alice, fails: /not valid or has expired/ },
        { at: 900, deny: alice, fails: /not valid or has expired/ },
      ],
    },
    {
      name: 'repeating one’s own answer is a no-op; changing it is a conflict',
      steps: [
        { at: 1, approve: alice },
        { at: 2, approve: alice },
        { at: 3, deny: alice, fails: /already been answered/ },
        { at: 4, approve: bob, fails: /already been answered/ },
        { at: 5, poll: 'token' },
        { at: 6, approve: alice },
        { at: 7, deny: bob, fails: /already been answered/ },
        { at: 8, poll: 'invalid_grant' },
      ],
    },
    {
      name: 'a denial stands',
      steps: [
        { at: 1, deny: bob },
        { at: 2, deny: bob },
        { at: 3, approve: bob, fails: /already been answered/ },
        { at: 4, approve: alice, fails: /already been answered/ },
        { at: 5, poll: 'access_denied' },
      ],
    },
  ])('$name', async ({ steps }) => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    for (const step of steps) {
      const now = at(step.at);
      if ('poll' in step) {
        expect({ at: step.at, outcome: outcome(await flow.poll(device_code, now)) }).toEqual({ at: step.at, outcome: step.poll });
        continue;
      }
      const answer = 'approve' in step ? flow.approve(user_code, step.approve, now) : flow.deny(user_code, step.deny, now);
      if (step.fails) await expect(answer).rejects.toThrow(step.fails);
      else await expect(answer).resolves.toBeUndefined();
    }
  });

  it('tells a client that polls too fast the new interval', async () => {
    const { device_code } = await flow.start('apps:read', T0);
    await flow.poll(device_code, at(0));
    expect(await flow.poll(device_code, at(1))).toEqual({
      status: 400,
      body: { error: 'slow_down', error_description: 'Polling too fast: wait at least 10 seconds between requests.' },
    });
  });

  it.each(['', 'not-a-device-code', 'A'.repeat(43)])('answers invalid_grant for the unknown device code %j', async (code) => {
    expect(await flow.poll(code, T0)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'The device code is not valid.' } });
  });
});

describe('the token', () => {
  it('acts as the approving user with exactly the requested scopes and does not expire by default', async () => {
    const { device_code, user_code } = await flow.start('domain:write apps:read', T0);
    await flow.approve(user_code.toLowerCase(), alice, at(3));
    const response = await flow.poll(device_code, at(5));
    if (response.status !== 200) throw new Error(`expected a token, got ${response.body.error}`);
    expect(response.body).toEqual({ access_token: expect.stringMatching(/^cwt_/), token_type: 'Bearer', scope: 'apps:read domain:write' });
    const principal = await authenticate(`Bearer ${response.body.access_token}`, tokens, at(10_000_000));
    expect(principal).toEqual({ userId: 'alice', tokenId: response.tokenId, scopes: ['apps:read', 'domain:write'], admin: false });
    expect(await tokens.getToken(response.tokenId)).toMatchObject({ description: 'Device sign-in on 2030-06-01', expiresAt: undefined });
  });

  /** An `apps:read` sign-in `approver` approves at 1 s, polled at `pollAt` s: a token, working until `expiry` s and not from then on. */
  async function expectExpiry(approver: Principal, pollAt: number, expiresIn: number, expiry: number): Promise<void> {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.approve(user_code, approver, at(1));
    const response = await flow.poll(device_code, at(pollAt));
    expect(response).toMatchObject({ status: 200, body: { expires_in: expiresIn } });
    const token = response.status === 200 ? response.body.access_token : '';
    await expect(authenticate(`Bearer ${token}`, tokens, at(expiry - 0.001))).resolves.toMatchObject({ userId: 'alice' });
    await expect(authenticate(`Bearer ${token}`, tokens, at(expiry))).rejects.toThrow('The access token has expired.');
  }

  it('expires after tokenLifetimeSeconds when configured', async () => {
    setUp({ tokenLifetimeSeconds: 3600 });
    await expectExpiry(alice, 5, 3600, 3605);
  });

  it('never outlives the token that approved it', async () => {
    setUp({ tokenLifetimeSeconds: 7200 });
    await expectExpiry({ ...alice, expiresAt: at(3600) }, 600, 3000, 3600);
  });

  it('is not handed out once the approving token has expired', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.approve(user_code, { ...alice, expiresAt: at(10) }, at(1));
    expect(outcome(await flow.poll(device_code, at(10)))).toBe('expired_token');
    expect(await tokens.listTokens('alice')).toEqual([]);
  });

  it('carries admin when an administrator approves a request for it', async () => {
    const { device_code, user_code } = await flow.start('admin projects:write', T0);
    await flow.approve(user_code, root, at(1));
    const response = await flow.poll(device_code, at(5));
    const token = response.status === 200 ? response.body.access_token : '';
    await expect(authenticate(`Bearer ${token}`, tokens, at(6))).resolves.toMatchObject({ userId: 'root', admin: true });
  });

  it('is minted once however many polls race', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.approve(user_code, alice, at(1));
    const responses = await Promise.all(Array.from({ length: 5 }, () => flow.poll(device_code, at(5))));
    expect(responses.map(outcome).sort()).toEqual(['invalid_grant', 'invalid_grant', 'invalid_grant', 'invalid_grant', 'token']);
    expect(await tokens.listTokens('alice')).toHaveLength(1);
  });

  it('is lost, never duplicated, when storing it fails after the grant was marked', async () => {
    const broken = {
      createToken: () => Promise.reject(new Error('apiserver down')),
      getUser: tokens.getUser.bind(tokens),
      listTokens: tokens.listTokens.bind(tokens),
      deleteToken: tokens.deleteToken.bind(tokens),
    };
    const brokenFlow = createDeviceFlow({ grants, tokens: broken, verificationUri: VERIFICATION_URI });
    const { device_code, user_code } = await brokenFlow.start('apps:read', T0);
    await brokenFlow.approve(user_code, alice, at(1));
    await expect(brokenFlow.poll(device_code, at(5))).rejects.toThrow('apiserver down');
    expect(outcome(await brokenFlow.poll(device_code, at(10)))).toBe('invalid_grant');
    expect(await tokens.listTokens('alice')).toEqual([]);
  });
});

describe('minting checks the approving user again', () => {
  it('answers access_denied, minting nothing, when the user was deleted after approving', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.approve(user_code, alice, at(1));
    tokens.deleteUser('alice');
    const denied = await flow.poll(device_code, at(5));
    expect(denied).toMatchObject({ status: 400, body: { error: 'access_denied', error_description: 'The user who approved this sign-in no longer exists.' } });
    // For good: a user created again under the same id gets nothing from this sign-in.
    tokens.putUser({ id: 'alice', admin: false });
    expect(outcome(await flow.poll(device_code, at(10)))).toBe('access_denied');
    expect(await tokens.listTokens('alice')).toEqual([]);
  });

  it('answers access_denied, for good, when the user holds the most active tokens a user may', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.approve(user_code, alice, at(1));
    const held = [];
    for (let i = 0; i < MAX_ACTIVE_TOKENS_PER_USER; i++) held.push(await createPersonalToken(alice, { scopes: ['apps:read'], description: `t${i}` }, tokens, at(2)));
    const refused = await flow.poll(device_code, at(5));
    expect(refused).toMatchObject({ status: 400, body: { error: 'access_denied' } });
    expect(refused.status === 400 && refused.body.error_description).toContain(`holds the ${MAX_ACTIVE_TOKENS_PER_USER} active tokens a user may`);
    await tokens.revokeToken(held[0]!.record.id);
    expect(outcome(await flow.poll(device_code, at(11)))).toBe('access_denied');
    // A new sign-in, once there is room, works.
    const next = await flow.start('apps:read', at(12));
    await flow.approve(next.user_code, alice, at(13));
    expect(outcome(await flow.poll(next.device_code, at(18)))).toBe('token');
    expect(await tokens.listTokens('alice')).toHaveLength(MAX_ACTIVE_TOKENS_PER_USER + 1);
  });

  it("prunes the user's oldest revoked tokens beyond those kept, as a personal token does", async () => {
    for (let i = 0; i <= MAX_INACTIVE_TOKENS_KEPT; i++) {
      const { record } = await createPersonalToken(alice, { scopes: ['apps:read'], description: `t${i}` }, tokens, at(i));
      await tokens.revokeToken(record.id);
    }
    const { device_code, user_code } = await flow.start('apps:read', at(200));
    await flow.approve(user_code, alice, at(201));
    expect(outcome(await flow.poll(device_code, at(205)))).toBe('token');
    const held = await tokens.listTokens('alice');
    expect(held.filter((token) => token.revoked)).toHaveLength(MAX_INACTIVE_TOKENS_KEPT - 1);
    expect(held.filter((token) => !token.revoked)).toHaveLength(1);
  });
});

describe('racing pending polls', () => {
  it('answers one of two simultaneous polls with slow_down', async () => {
    const { device_code } = await flow.start('apps:read', T0);
    await flow.poll(device_code, at(0));
    const responses = await Promise.all([flow.poll(device_code, at(5)), flow.poll(device_code, at(5))]);
    expect(responses.map(outcome).sort()).toEqual(['authorization_pending', 'slow_down']);
  });

  it('answers slow_down, and a decision a conflict, when every write keeps losing', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    const losing: DeviceGrantStore = { ...wrap(grants), update: async () => false };
    const stuck = createDeviceFlow({ grants: losing, tokens, verificationUri: VERIFICATION_URI });
    expect(outcome(await stuck.poll(device_code, at(0)))).toBe('slow_down');
    await expect(stuck.approve(user_code, alice, at(1))).rejects.toThrow(ConflictError);
  });
});

describe('approve, deny and inspect', () => {
  it.each([
    { name: 'an unknown code', code: () => 'BCDF-GHJK' },
    { name: 'a malformed code', code: () => 'hello' },
    { name: 'an empty code', code: () => '' },
  ])('refuse $name with 404: no sign-in waits under it', async ({ code }) => {
    await flow.start('apps:read', T0);
    for (const answer of [flow.approve(code(), alice, at(1)), flow.deny(code(), alice, at(1)), flow.inspect(code(), at(1))]) {
      await expect(answer).rejects.toThrow(NotFoundError);
    }
  });

  it.each<{ name: string; scopes: string; who: Principal; detail: string }>([
    { name: 'without tokens:write', scopes: 'apps:read', who: member('alice', ['apps:read']), detail: 'This token lacks the scope tokens:write.' },
    { name: 'for a scope the approver lacks', scopes: 'env:write', who: member('alice', ['tokens:write']), detail: 'This token cannot grant the scope env:write, which it does not hold itself.' },
    { name: 'for admin by a non-administrator', scopes: 'admin', who: alice, detail: 'This token cannot grant the scope admin, which it does not hold itself.' },
  ])('refuse approval $name with 403 and leave the request pending', async ({ scopes, who, detail }) => {
    const { device_code, user_code } = await flow.start(scopes, T0);
    const error = await flow.approve(user_code, who, at(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ message: detail });
    expect(outcome(await flow.poll(device_code, at(2)))).toBe('authorization_pending');
  });

  it('lets a principal without tokens:write deny', async () => {
    const { device_code, user_code } = await flow.start('apps:read', T0);
    await flow.deny(user_code, member('alice', []), at(1));
    expect(outcome(await flow.poll(device_code, at(2)))).toBe('access_denied');
  });

  it('inspect shows a pending request to the approval page, and nothing once answered', async () => {
    const { user_code } = await flow.start('env:read apps:read', T0);
    expect(await flow.inspect(` ${user_code.toLowerCase()} `, at(1))).toEqual({ userCode: user_code, scopes: ['apps:read', 'env:read'], expiresAt: at(900) });
    await flow.approve(user_code, alice, at(2));
    await expect(flow.inspect(user_code, at(3))).rejects.toThrow(ConflictError);
    await expect(flow.inspect(user_code, at(900))).rejects.toThrow(NotFoundError);
  });
});

/** A store delegating to `inner`, so single methods can be overridden with spread. */
function wrap(inner: DeviceGrantStore): DeviceGrantStore {
  return {
    create: (grant) => inner.create(grant),
    findByDeviceCodeHash: (hash) => inner.findByDeviceCodeHash(hash),
    findByUserCode: (code) => inner.findByUserCode(code),
    update: (next, revision) => inner.update(next, revision),
  };
}
