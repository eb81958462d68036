// The mapping between the auth domain's TokenRecord and the AccessToken custom resource.
import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import type { AccessToken } from '../../src/apis/v1alpha1/index.ts';
import type { TokenRecord } from '../../src/auth/ports.ts';
import { formatTime } from '../../src/kube/index.ts';

/**
 * Where `TokenRecord.createdAt` is kept. The AccessToken schema has no spec field for it, and
 * `metadata.creationTimestamp` is set by the apiserver, so a token minted at T and written a moment later
 * would read back with another time. Tokens applied with kubectl lack the annotation and fall back to
 * `creationTimestamp`.
 */
export const CREATED_AT_ANNOTATION = 'cloudwright.dev/created-at';

/**
 * The AccessToken to create for `token` (timestamps truncated to whole seconds, as Kubernetes keeps them).
 * A token bound to its user's uid is owned by that User: the garbage collector deletes it with the user,
 * including a token made a moment after the deletion began (its owner is then already gone).
 */
export function toAccessToken(token: TokenRecord): AccessToken {
  const owner = token.userUid === undefined ? {} : { ownerReferences: [{ apiVersion: API_VERSION, kind: 'User', name: token.userId, uid: token.userUid }] };
  return {
    metadata: { name: token.id, annotations: { [CREATED_AT_ANNOTATION]: formatTime(token.createdAt) }, ...owner },
    spec: {
      user: token.userId,
      tokenHash: token.tokenHash,
      scopes: [...token.scopes],
      description: token.description,
      ...(token.expiresAt ? { expiresAt: formatTime(token.expiresAt) } : {}),
      ...(token.session ? { session: { idleTimeoutSeconds: token.session.idleTimeoutSeconds } } : {}),
      revoked: token.revoked,
    },
  };
}

/**
 * The record an AccessToken stands for; a fresh object on every call, so callers may mutate it. Lenient with
 * hand-written objects: a missing description reads as empty, a missing `revoked` as false.
 */
export function toTokenRecord(object: AccessToken): TokenRecord {
  const { spec, metadata = {} } = object;
  const annotated = new Date(metadata.annotations?.[CREATED_AT_ANNOTATION] ?? Number.NaN);
  const createdAt = Number.isNaN(annotated.getTime()) ? new Date(metadata.creationTimestamp ?? 0) : annotated;
  const userUid = metadata.ownerReferences?.find((owner) => owner.kind === 'User' && owner.name === spec.user)?.uid;
  return {
    id: metadata.name ?? '',
    userId: spec.user,
    ...(userUid === undefined ? {} : { userUid }),
    tokenHash: spec.tokenHash,
    scopes: [...(spec.scopes ?? [])],
    description: spec.description ?? '',
    createdAt,
    expiresAt: spec.expiresAt === undefined ? undefined : new Date(spec.expiresAt),
    revoked: spec.revoked === true,
    ...(spec.session ? { session: { idleTimeoutSeconds: spec.session.idleTimeoutSeconds } } : {}),
    ...(object.status?.lastUsedAt ? { lastUsedAt: new Date(object.status.lastUsedAt) } : {}),
  };
}
