import type { FastifyInstance } from 'fastify';
import type { RepoCache } from '../../src/git/repo-cache.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { RepoStore } from '../../src/repo-store/index.ts';
import type { ArchiveSpool } from './archive-spool.ts';

/** What the JSON API's routes need. */
export interface RepoApiDependencies {
  readonly repos: RepoStore;
  /** The bucket, for the few objects of the API itself (the import receipt). */
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
  /** Repositories (`owner/name`, same bucket) `POST /import` may import from; none: refused (403). */
  readonly importSources?: readonly string[];
}
