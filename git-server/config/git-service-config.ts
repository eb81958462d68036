import type { FetchBounds } from '../fetch-slots.ts';
import type { PinoLevel } from '../../src/config/checks.ts';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import type { ListenAddress } from './fields.ts';
import type { Role } from './schema.ts';

/**
 * The configuration of one `cw-git` instance, as `loadConfig` answers it: every key of the file camelCased,
 * defaults applied, durations in milliseconds. Holds secrets (`auth.tokenSecret`, `events.webhookSecret`,
 * the S3 keys): never log it whole.
 */
export interface GitServiceConfig {
  store: {
    bucket: string;
    /** Where the bucket is and the credentials to reach it (`credentials` absent: the SDK's refreshing chain). */
    s3: S3Config;
    /** `store.s3.credentials`: `env` (keys read from the environment at startup) or `default` (the SDK's chain). */
    credentialSource: 'env' | 'default';
  };
  server: {
    listen: ListenAddress;
    /** Base URL clients reach this service at (no trailing slash); absent: derived from each request's Host. */
    publicUrl?: string;
    /** The roles to run; never empty (an empty list in the file means all of them). */
    roles: Role[];
    corsOrigins: string[];
    drainTimeoutMs: number;
    /** Fetches and clones running at once, per caller, per repository owner and in all, and how long one waits its turn (fetch-slots.ts). */
    fetches: FetchBounds;
  };
  auth: {
    /** The HS256 key of access tokens (at least 32 bytes). */
    tokenSecret: string;
    /** Addresses and CIDR ranges whose forwarded principal header is believed. */
    trustedProxies: string[];
    /** The header (lower case) carrying the end user's principal from a trusted proxy. */
    principalHeader: string;
  };
  api: {
    /** Repositories of this bucket `POST /api/initialize` may copy a template tree from (none: initialize is refused). */
    initializeSources: string[];
    /** Repositories of this bucket (`owner/name`) and `https://` URL patterns `POST /api/import` may import from (none: refused). */
    importSources: string[];
    /** An import from a URL must finish within this (resolve and fetch each). */
    importTimeoutMs: number;
    /** An import from a URL may receive at most this many bytes from the source. */
    importMaxBytes: number;
    /** Imports may fetch from loopback, private and link-local addresses (a git server in the cluster). */
    importAllowPrivateTargets: boolean;
    /** A PEM bundle git trusts instead of the system's CAs for URL imports (a source behind a private CA). */
    importCaFile?: string;
    /** A JSON API write's git work is cut past this, before it publishes (503 `write_deadline`): `api.write_deadline`. */
    writeDeadlineMs: number;
  };
  events: {
    webhookUrl?: string;
    webhookSecret?: string;
    sweepIntervalMs: number;
    /** Deliveries may go to loopback, private and link-local addresses (a receiver on this host or in the cluster). */
    allowPrivateTargets: boolean;
    /** Addresses and CIDR ranges deliveries never go to, on top of the internal ranges. */
    deniedTargetRanges: string[];
  };
  wal: {
    freshnessTtlMs: number;
  };
  cache: {
    /** Absolute path of this instance's cache directory. */
    dir: string;
    diskHighWatermark: number;
    /**
     * What the cache directory may hold (`cache.max_size`: the chart's emptyDir limit, which its file system does
     * not show): the watermark then applies to the bytes under it too, not only to the disk's used fraction.
     */
    maxBytes?: number;
    evictIntervalMs: number;
    /** What pushes, LFS uploads and URL imports being received may hold in the cache directory at once, in all and per owner. */
    spoolMaxBytes: number;
    spoolMaxBytesPerOwner: number;
  };
  quota: {
    /** What one repository may store in the bucket: its live packs and LFS objects together (git-server/plumbing/storage-quota.ts). */
    repositoryMaxBytes: number;
    /** The refs one repository may hold: creates past it are refused, moves and deletions never (src/repo-store/refs.ts). */
    repositoryMaxRefs: number;
    /** What all repositories of one owner (a project's) may store together. */
    ownerMaxBytes: number;
    /** Repositories one owner may have, without Kubernetes (with it, the project's ResourceQuota counts them). */
    ownerMaxRepositories: number;
  };
  maintenance: {
    intervalMs: number;
    /** Log entries are retired only behind a checkpoint at least this old (and the events cursor). */
    logRetentionMs: number;
    /** Packs retired by compaction, or never referenced, stay in the bucket at least this long. */
    gracePeriodMs: number;
    /** A maintenance unit running longer is interrupted, its marker kept (`maintenance.unit_deadline`). */
    unitDeadlineMs: number;
    /** What one owner's units may take of a pass before its other repositories wait for the next (`maintenance.owner_budget`). */
    ownerBudgetMs: number;
  };
  kubernetes: {
    /** When set, repositories are `Repository` custom resources in this namespace (KUBECONFIG from the environment). */
    namespace?: string;
    /** Accept the platform's per-project git tokens (`cwg_…`, GitToken resources of project namespaces). */
    projectTokens: boolean;
    /**
     * Where the events role reads `RepositoryWebhook` resources and their Secrets (`kubernetes.webhook_namespace`,
     * default `namespace`): a namespace of their own keeps every other Secret out of cw-git's reach.
     */
    webhookNamespace?: string;
  };
  /** The process's own settings, from the environment rather than the file. */
  environment: {
    /** CW_LOG_LEVEL (default info). */
    logLevel: PinoLevel;
    /** KUBECONFIG; absent: in-cluster (used with `kubernetes.namespace` or `kubernetes.project_tokens` only). */
    kubeconfig?: string;
  };
}
