// What to do about the bucket, decided from what the resource has claimed and what the bucket holds. Pure:
// the reconciler reads the bucket, asks here, and carries the answer out.

/** What the bucket holds under `owner/name`. */
export type BucketState = { readonly kind: 'missing' } | { readonly kind: 'present'; readonly repoId: string; readonly seq: number };

export type Decision =
  /** Nothing there and nothing claimed: create the repository (a conditional create; it may lose a race). */
  | { readonly kind: 'create' }
  /** The bucket holds this resource's incarnation (or one it may adopt): record it and report Available. */
  | { readonly kind: 'hold'; readonly repoId: string; readonly seq: number }
  /** The bucket holds data this resource did not create: leave it alone, report RepositoryExists. */
  | { readonly kind: 'exists'; readonly repoId: string }
  /** This resource's incarnation is gone (deleted, or replaced by another) outside it: report RepositoryLost. */
  | { readonly kind: 'lost'; readonly claim: string; readonly found?: string };

/**
 * The decision for the resource holding the name (see holder.ts). `claim` is its `status.repoId`, `adopt`
 * its `cloudwright.dev/adopt-repo-id` annotation.
 *
 * An unclaimed resource adopts what it finds only when that is pristine (seq 0: nothing was ever written,
 * so nobody's data is taken over; this is also how a controller that crashed between creating the manifest
 * and recording its repoId finds its own work again) or when the annotation names exactly that
 * incarnation. A claimed resource never adopts anything else and never recreates what it lost: that would
 * silently turn data loss into an empty repository.
 */
export function decide(claim: string | undefined, adopt: string | undefined, bucket: BucketState): Decision {
  if (claim !== undefined) {
    if (bucket.kind === 'present' && bucket.repoId === claim) return { kind: 'hold', repoId: claim, seq: bucket.seq };
    return { kind: 'lost', claim, ...(bucket.kind === 'present' ? { found: bucket.repoId } : {}) };
  }
  if (bucket.kind === 'missing') return { kind: 'create' };
  if (bucket.seq === 0 || adopt === bucket.repoId) return { kind: 'hold', repoId: bucket.repoId, seq: bucket.seq };
  return { kind: 'exists', repoId: bucket.repoId };
}

/**
 * What the finalizer does with the bucket when the resource is deleted: delete the repository only when
 * it is this resource's incarnation, or when the manifest is already gone (a delete interrupted half-way
 * left objects behind, and deleting again sweeps them). Anything else belongs to someone else: release.
 */
export function cleanupAction(claim: string | undefined, bucket: BucketState): 'delete' | 'release' {
  if (claim === undefined) return 'release';
  if (bucket.kind === 'missing' || bucket.repoId === claim) return 'delete';
  return 'release';
}
