// How a DeviceGrant is kept in a Secret. Nothing secret is in it — the port hands us only hashes — but a
// Secret keeps grants out of ConfigMap-wide RBAC and out of anything that dumps ConfigMaps.
import { Type } from 'typebox';
import Value from 'typebox/value';
import type { DeviceGrant, DeviceGrantState } from '../../src/auth/ports.ts';
import { secretText, type SecretObject } from '../../src/kube/index.ts';

/** The `type` of every grant Secret: what the store lists, and how it recognises its own Secrets. */
export const DEVICE_GRANT_SECRET_TYPE = 'cloudwright.dev/device-grant';

/** Label holding the normalised user code, so a code is found with a label selector. */
export const USER_CODE_LABEL = 'cloudwright.dev/device-user-code';

const DATA_KEY = 'grant';
const HASH = /^[0-9a-f]{64}$/;
// A label value (at most 63 characters) — anything else could not be stored, so it cannot be found either.
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** The Secret's name for a device code hash; `undefined` when the input is not a lowercase hex SHA-256. */
export function grantSecretName(deviceCodeHash: string): string | undefined {
  return HASH.test(deviceCodeHash) ? `device-grant-${deviceCodeHash}` : undefined;
}

/** Whether `userCode` can be a label value (a normalised user code always can). */
export function isStorableUserCode(userCode: string): boolean {
  return LABEL_VALUE.test(userCode);
}

/** The Secret holding `grant`; with `resourceVersion`, a replacement conditional on it. */
export function toGrantSecret(namespace: string, grant: DeviceGrant, resourceVersion?: string): SecretObject {
  const name = grantSecretName(grant.deviceCodeHash);
  if (!name) throw new Error('deviceCodeHash must be a lowercase hex SHA-256');
  if (!isStorableUserCode(grant.userCode)) throw new Error('userCode must be a normalised user code');
  const stored: StoredGrant = {
    ...grant,
    scopes: [...grant.scopes],
    createdAt: grant.createdAt.toISOString(),
    expiresAt: grant.expiresAt.toISOString(),
    lastPolledAt: grant.lastPolledAt?.toISOString(),
    state: storedState(grant.state),
  };
  return {
    metadata: { name, namespace, labels: { [USER_CODE_LABEL]: grant.userCode }, ...(resourceVersion ? { resourceVersion } : {}) },
    type: DEVICE_GRANT_SECRET_TYPE,
    data: { [DATA_KEY]: Buffer.from(JSON.stringify(stored)).toString('base64') },
  };
}

/** The grant a Secret holds; `undefined` for a Secret of another type or with unreadable data. */
export function fromGrantSecret(secret: SecretObject): DeviceGrant | undefined {
  const text = secret.type === DEVICE_GRANT_SECRET_TYPE ? secretText(secret, DATA_KEY) : undefined;
  if (text === undefined) return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Value.Check(StoredGrant, stored)) return undefined;
  return {
    ...stored,
    scopes: [...stored.scopes],
    createdAt: new Date(stored.createdAt),
    expiresAt: new Date(stored.expiresAt),
    lastPolledAt: stored.lastPolledAt === undefined ? undefined : new Date(stored.lastPolledAt),
    state: stored.state.kind === 'approved' ? { ...stored.state, notAfter: stored.state.notAfter === undefined ? undefined : new Date(stored.state.notAfter) } : { ...stored.state },
  };
}

/** A state as JSON: the approval's `notAfter` as an ISO string. */
function storedState(state: DeviceGrantState): StoredGrant['state'] {
  if (state.kind !== 'approved') return state;
  const { notAfter, ...rest } = state;
  return notAfter === undefined ? rest : { ...rest, notAfter: notAfter.toISOString() };
}

const UserId = Type.String({ minLength: 1 });
const StoredGrant = Type.Object({
  deviceCodeHash: Type.String({ pattern: HASH.source }),
  userCode: Type.String({ minLength: 1 }),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  intervalSeconds: Type.Number({ minimum: 0 }),
  lastPolledAt: Type.Optional(Type.String({ format: 'date-time' })),
  state: Type.Union([
    Type.Object({ kind: Type.Literal('pending') }),
    Type.Object({ kind: Type.Literal('approved'), userId: UserId, userUid: Type.Optional(Type.String({ maxLength: 128 })), notAfter: Type.Optional(Type.String({ format: 'date-time' })) }),
    Type.Object({ kind: Type.Literal('denied'), userId: UserId }),
    Type.Object({ kind: Type.Literal('redeemed'), userId: UserId, tokenId: Type.String({ minLength: 1 }) }),
  ]),
});
type StoredGrant = Type.Static<typeof StoredGrant>;
