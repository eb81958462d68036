import type { GitServiceConfig } from './git-service-config.ts';

/**
 * Settings this build of cw-git accepts (they are the spec's, and a configuration written for a later
 * build must load) but does not act on yet, each with what that means. `cw-git serve` logs them at start,
 * so nobody relies on a separation that is not there. See docs/repository-service.md, "Not built yet".
 */
export function unbuiltSettings(config: GitServiceConfig): string[] {
  const notes: string[] = [];
  // The default (every role) is not worth a warning on every start; a list leaving serving out is.
  if (!config.server.roles.includes('serve')) {
    notes.push('server.roles: serving is not separated from the other roles yet; this instance serves git, LFS and the API too');
  }
  return notes;
}
