import { AccessTokenKind, ProjectKind, UserKind, type KindDescriptor } from '../apis/v1alpha1/index.ts';
import { customResource, type ResourceRef } from '../kube/index.ts';

/** The apiserver resource of a kind, from its descriptor, so names and scope are spelled once. */
export function resourceOf(kind: KindDescriptor): ResourceRef {
  return customResource(kind.kind, kind.plural, kind.scope === 'Namespaced');
}

export const ACCESS_TOKENS = resourceOf(AccessTokenKind);
export const USERS = resourceOf(UserKind);
export const PROJECTS = resourceOf(ProjectKind);
