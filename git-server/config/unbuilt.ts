import type { GitServiceConfig } from './git-service-config.ts';

/**
 * Settings this build of cw-git accepts (they are the spec's, and a configuration written for a later
 * build must load) but does not act on yet, each with what that means. `cw-git serve` logs them at start,
 * so nobody waits for a webhook or a compaction that will not come. See docs/repository-service.md,
 * "Not built yet".
 */
export function unbuiltSettings(config: GitServiceConfig): string[] {
  const notes: string[] = [];
  if (config.events.webhookUrl !== undefined || config.events.webhookSecret !== undefined) {
    notes.push('events.webhook_url: the events bridge is not built yet; no ref event is delivered');
  }
  // The default (every role) is not worth a warning on every start; a list leaving serving out is.
  if (!config.server.roles.includes('serve')) {
    notes.push('server.roles: serving is not separated from the other roles yet; this instance serves git, LFS and the API too');
  }
  return notes;
}
