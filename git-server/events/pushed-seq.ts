// The push mark's rule: the `cloudwright.dev/pushed-seq` annotation of a Repository resource holds the repository's
// head seq (decimal) and is only ever raised. The patch is conditional on the resourceVersion it was decided on, so
// two cw-git instances (or a slow retry with an old head) racing each other never lower it: the loser's patch fails
// with 409, it reads again, and finds the mark already where it was going, or higher.
import { PUSHED_SEQ_ANNOTATION, type Repository } from '../../src/apis/v1alpha1/repository.ts';

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

/** The mark a resource carries, or `undefined` when it has none (or holds something that is not a seq). */
export function pushedSeqOf(resource: Repository): bigint | undefined {
  const value = resource.metadata?.annotations?.[PUSHED_SEQ_ANNOTATION];
  return value !== undefined && DECIMAL.test(value) ? BigInt(value) : undefined;
}

/**
 * The merge patch raising `resource`'s mark to `headSeq`, conditional on its resourceVersion; `undefined` when the
 * mark is already there or higher. A value that is not a seq is replaced: it was never a mark.
 */
export function pushedSeqPatch(resource: Repository, headSeq: number | bigint): object | undefined {
  const head = BigInt(headSeq);
  const current = pushedSeqOf(resource);
  if (current !== undefined && current >= head) return undefined;
  const resourceVersion = resource.metadata?.resourceVersion;
  if (!resourceVersion) throw new Error('a Repository resource without a resourceVersion cannot be patched conditionally');
  return { metadata: { resourceVersion, annotations: { [PUSHED_SEQ_ANNOTATION]: head.toString() } } };
}
