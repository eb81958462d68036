// Whose share of cw-git's bounded work (webhook deliveries, archives, fetches from a URL) an owner's repositories
// spend. Standalone, an owner is its own tenant. On the platform an owner is a project, and one person can make
// many: shares keyed by project alone would let two projects of one person take a whole pool, so a project created
// for a user counts as that user's.
import { projectAccount } from '../src/platform/project-account.ts';
import type { ProjectTokenSource } from './auth/project-tokens.ts';

/** The key of the share that work on `owner`'s repositories counts against. */
export type ShareOf = (owner: string) => string;

/** Every owner its own share. */
export const ownShare: ShareOf = (owner) => owner;

/** A project's owner shares with every other project created for the same user (the platform's `projectAccount`); anything else is its own share. */
export function projectCreatorShare(projects: Pick<ProjectTokenSource, 'project'>): ShareOf {
  return (owner) => projectAccount(owner, projects.project(owner));
}
