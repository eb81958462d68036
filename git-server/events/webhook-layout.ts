// Where a per-repository webhook keeps its state in the bucket: under the repository's prefix, so it goes with
// the repository, in a folder named after the resource's uid, so a webhook deleted and created again under the
// same name starts afresh.
import { repoPrefix } from '../../src/repo-store/layout.ts';
import type { RepoPath } from '../../src/repo-store/repo-path.ts';

/** `repos/<owner>/<repo>/events/webhooks/<uid>/` */
export function webhookPrefix(repo: RepoPath, uid: string): string {
  return `${repoPrefix(repo)}events/webhooks/${uid}/`;
}

/** The webhook's cursor: the same shape and compare-and-swap rules as the spec's `events/cursor.json`. */
export function webhookCursorKey(repo: RepoPath, uid: string): string {
  return `${webhookPrefix(repo, uid)}cursor.json`;
}

/** The webhook's delivery log: its last deliveries, newest first (delivery-log.ts). */
export function webhookDeliveriesKey(repo: RepoPath, uid: string): string {
  return `${webhookPrefix(repo, uid)}deliveries.json`;
}
