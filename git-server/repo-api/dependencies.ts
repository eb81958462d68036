import type { ReadTurns } from './repo-read.ts';
import type { FetchSlots } from '../fetch-slots.ts';
import type { SpoolBudget } from '../plumbing/spool-budget.ts';
import type { StorageQuota } from '../plumbing/storage-quota.ts';
import type { FastifyInstance } from 'fastify';
import type { RepoCache } from '../plumbing/repo-cache.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { MaintenanceRunner } from '../../src/repo-maintenance/operation.ts';
import type { RepoPath, RepoStore } from '../../src/repo-store/index.ts';
import type { TargetPolicy } from '../../src/target-policy.ts';
import type { SourcePatterns } from '../import/source-url.ts';
import type { TaskRegistry } from '../tasks/task-registry.ts';
import type { ArchiveSpool } from './archive-spool.ts';
import type { RepoWebhooksApi } from './hooks.ts';

/** Imports from https URLs (`api.import_*`): which URLs, and the bounds of each fetch. */
export interface UrlImports {
  /** The URL patterns of `api.import_sources`; none: every URL is refused (403). */
  readonly patterns: SourcePatterns;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** The webhooks' target policy, with `api.import_allow_private_targets`. */
  readonly policy: TargetPolicy;
  readonly caFile?: string;
}

/** What the JSON API's routes need. */
export interface RepoApiDependencies {
  readonly repos: RepoStore;
  /** Turns of the costly reads (repo-read.ts); one set per instance. */
  readonly reads: ReadTurns;
  /** Turns of the writes that run git (write/write-turns.ts); one set per instance. */
  readonly writes: FetchSlots;
  /** How long a write's git work may run once it has its turn, before it is cut unpublished (write/write-turns.ts). Default 5 min. */
  readonly writeDeadlineMs?: number;
  /** The bucket, for the few objects of the API itself (the import receipt) and the maintenance objects (overview). */
  readonly objects?: ObjectStore;
  /** Every read runs git over the cached copy, brought to the bucket's head first (as a fetch is). */
  readonly cache: RepoCache;
  /** This service's base URL for links (clone URL, LFS objects); default from the request's Host. */
  readonly publicUrl?: string;
  /** Archives spooled for Range and HEAD requests (archive-spool.ts), in the cache's tmp directory. */
  readonly archives: ArchiveSpool;
  /** Adds the browser lane's CORS handling to its scope (browser-lane.ts). */
  readonly browserLane?: (scope: FastifyInstance) => void;
  /** Repositories (`owner/name`, same bucket) `POST /initialize` may copy a tree from; none: refused (403). */
  readonly initializeSources?: readonly string[];
  /**
   * Where projects hold repositories too (project git tokens): whether `repo` is cw-git's own. A template is copied
   * whatever the caller reaches, as the operator published it, so one a project made under a template's name is not one.
   */
  readonly heldByService?: (repo: RepoPath) => boolean;
  /** Repositories (`owner/name`, same bucket) `POST /import` may import from; none: refused (403). */
  readonly importSources?: readonly string[];
  /** Imports from https URLs; absent: refused (403). */
  readonly urlImports?: UrlImports;
  /** What is being received onto the disk, per owner and in all: a URL import's fetch counts as a push does. */
  readonly spool?: SpoolBudget;
  /** What each repository may store (packs and LFS objects): a write whose pack would pass it answers 507. */
  readonly quota?: StorageQuota;
  /** This instance's tasks: `POST /ops/{op}` starts them, `/tasks` lists and follows them. */
  readonly tasks: TaskRegistry;
  /** Runs checkpoint, compact, gc and fsck for `POST /ops/{op}`; absent: those answer 501 (`sync` still runs). */
  readonly maintenance?: MaintenanceRunner;
  /** The events role's per-repository webhooks (`/hooks`); absent: those routes answer 404 `webhooks_not_enabled`. */
  readonly webhooks?: RepoWebhooksApi;
  /** A write's published pack could not be moved into the cached copy (`service_publish_local_apply_failed_total`). */
  readonly onLocalApplyFailed?: (repo: string, error: unknown) => void;
}
