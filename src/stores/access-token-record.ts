// The mapping between the auth domain's TokenRecord and the AccessToken custom resource.
import type { AccessToken } from '../apis/v1alpha1/index.ts';
import type { TokenRecord } from '../auth/ports.ts';
import { toKubeTime } from './time.ts';

/**
 * Where `TokenRecord.createdAt` is kept. The AccessToken schema has no spec field for it, and
 * `metadata.creationTimestamp` is set by the apiserver, so a token minted at T and written a moment later
 * would read back with another time. Tokens applied with kubectl lack the annotation and fall back to
 * `creationTimestamp`.
 */
export const CREATED_AT_ANNOTATION = 'cloudwright.dev/created-at';

/** The AccessToken to create for `token` (timestamps truncated to whole seconds, as Kubernetes keeps them). */
export function toAccessToken(token: TokenRecord): AccessToken {
  return {
    metadata: { name: token.id, annotations: { [CREATED_AT_ANNOTATION]: toKubeTime(token.createdAt) } },
    spec: {
      user: token.userId,
      tokenHash: token.tokenHash,
      scopes: [...token.scopes],
      description: token.description,
      ...(token.expiresAt ? { expiresAt: toKubeTime(token.expiresAt) } : {}),
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
  return {
    id: metadata.name ?? '',
    userId: spec.user,
    tokenHash: spec.tokenHash,
    scopes: [...(spec.scopes ?? [])],
    description: spec.description ?? '',
    createdAt,
    expiresAt: spec.expiresAt === undefined ? undefined : new Date(spec.expiresAt),
    revoked: spec.revoked === true,
  };
}
