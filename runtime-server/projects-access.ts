// What cw-runtime says when it may not list the Projects. They only say whom each project's use of the shared
// bounds counts against, so a runtime without that RBAC (a chart older than it, a ClusterRole trimmed by hand)
// serves as before, each project its own account. A 403 is how the cluster is set up, not a fault that passes:
// said once, then retried quietly, so a fixed ClusterRole is picked up without a warning every 30 s meanwhile.
import { statusCodeOf, type InformerErrorHandler } from '../src/kube/index.ts';
import type { Logger } from '../src/logging/log.ts';

export interface ProjectsAccess {
  /** The Projects informer's `onError`. */
  onError: InformerErrorHandler;
  /** The informer's `onListed`: after each whole list of the Projects (a relist too), says so if a refusal was said. */
  listed(): void;
}

/** Tells the logs what the Projects informer's failures mean: a refusal once, any other failure each time. */
export function projectsAccessLog(log: Logger): ProjectsAccess {
  let refused = false;
  return {
    onError(err, info) {
      const fields = { resource: 'projects', phase: info.phase, retryInMs: info.retryInMs, err };
      if (info.phase !== 'list-watch' || statusCodeOf(err) !== 403) {
        // Another failure is worth a warning each time; a refusal after it is said again.
        refused = false;
        return log.warn('informer error', fields);
      }
      if (refused) return log.debug('still may not list Projects', fields);
      refused = true;
      log.warn(
        'may not list and watch Projects (the ClusterRole of cw-runtime lacks projects: a chart older than this runtime?): each project counts as its own account against the shared bounds, not its creator’s, until it may; retrying quietly',
        fields,
      );
    },
    listed() {
      if (refused) log.info('Projects listed: each project counts against its creator’s account again', { resource: 'projects' });
      refused = false;
    },
  };
}
