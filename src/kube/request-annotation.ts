import type { KubeObject } from './types.ts';

/** The longest request value a status echoes (the status fields' bound); longer annotations are cut to it. */
const MAX_REQUEST_LENGTH = 64;

/**
 * A request recorded as an annotation (as Flux's `reconcile.fluxcd.io/requestedAt`: any new value asks
 * again) that the status has not echoed yet in `handled`; `undefined` when there is none to answer.
 */
export function unansweredRequest(obj: KubeObject, annotation: string, handled: string | undefined): string | undefined {
  const asked = obj.metadata?.annotations?.[annotation]?.slice(0, MAX_REQUEST_LENGTH);
  return asked !== undefined && asked !== handled ? asked : undefined;
}
