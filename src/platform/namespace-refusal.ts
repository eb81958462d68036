import { ConflictError } from '../errors.ts';
import { isNotFound, KubeApiError } from '../kube/index.ts';

/**
 * The 409 for a write the apiserver refused because the project's namespace is not there to take it: not made yet
 * (404, the operator sets the project up) or being deleted (403 "…because it is being terminated"), as a create
 * racing the project's deletion meets. Anything else: `undefined` (the caller's error stands).
 */
export function namespaceRefusal(err: unknown, project: string): ConflictError | undefined {
  if (isNotFound(err)) return new ConflictError(`Project ${project} is not set up yet (its namespace does not exist); retry in a few seconds.`);
  if (isNamespaceTerminating(err)) return new ConflictError(`Project ${project} is being deleted; nothing can be created in it.`);
  return undefined;
}

/** The apiserver refused a write into a namespace being deleted (403 "…because it is being terminated"). */
export function isNamespaceTerminating(err: unknown): boolean {
  return err instanceof KubeApiError && err.code === 403 && err.message.includes('because it is being terminated');
}
