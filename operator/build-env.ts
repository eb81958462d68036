import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type EnvReader } from '../src/config/env.ts';
import { DEFAULT_PROJECT_UNPACKED_QUOTA } from '../src/platform/build-quota.ts';
import { DEFAULT_PREVIEW_GRACE_MS, DEFAULT_RESYNC_MS } from './controllers/app-source/controller.ts';
import { DEFAULT_BUILD_LIMITS, type BuildLimits } from './controllers/source-build/build-runner.ts';
import type { BuildConcurrency } from './controllers/source-build/build-slots.ts';
import { DEFAULT_SOURCE_COPY_LIMITS, type SourceCopyLimits } from './controllers/source-build/source-export.ts';

/** Push to deploy: how builds run (operator/config.ts's `builds`). */
export interface BuildSettings {
  /** `local`: a child process of the operator (make dev); `job`: a Kubernetes Job in a sandboxed pod. */
  readonly runner: 'local' | 'job';
  /** Where the operator keeps repositories' copies and local runs' workspaces. */
  readonly workDir: string;
  /** How large a repository may be built, and how many bytes of copies are kept between builds. */
  readonly sources: SourceCopyLimits;
  readonly limits: BuildLimits;
  readonly concurrency: BuildConcurrency;
  readonly previewGraceMs: number;
  /** How often every source's refs are read again without a wake-up (CW_BUILD_RESYNC, default 5m). */
  readonly resyncMs: number;
  /** What a project's active builds may unpack to together: the API's CW_PROJECT_UNPACKED_QUOTA, checked again at activation. */
  readonly projectUnpackedQuota: number;
}

/**
 * CW_BUILD_RUNNER (`local` or `job`; unset: no push to deploy), CW_BUILD_WORK_DIR, CW_BUILD_CPU (millicores,
 * default 1000), CW_BUILD_MEMORY (default 2Gi), CW_BUILD_DISK (default 4Gi), CW_BUILD_DEADLINE (default 15m),
 * CW_BUILD_CONCURRENCY (default 2), CW_BUILD_CONCURRENCY_PER_PROJECT (default 1) and CW_BUILD_CONCURRENCY_PER_USER
 * (over the projects a user created; default: the per-project value), CW_PREVIEW_GRACE (how long a
 * preview outlives its branch, default 1h), CW_BUILD_RESYNC (how often refs are read without a wake-up, default
 * 5m), CW_PROJECT_UNPACKED_QUOTA (as cw-api's), CW_BUILD_MAX_REPOSITORY (the largest repository built, default
 * 1Gi) and CW_BUILD_REPOSITORY_CACHE (the repositories' copies kept between builds, default 1Gi).
 *
 * @throws ConfigError naming the first variable with a bad value.
 */
export function buildSettingsFromEnv(read: EnvReader): BuildSettings | undefined {
  const runner = read.matching('CW_BUILD_RUNNER', undefined, (text) => text === 'local' || text === 'job', 'local or job');
  const workDir = read.string('CW_BUILD_WORK_DIR', join(tmpdir(), 'cloudwright-operator'));
  const limits: BuildLimits = {
    cpuMillis: read.integer('CW_BUILD_CPU', DEFAULT_BUILD_LIMITS.cpuMillis, { min: 100, max: 64_000 }, 'millicores from 100 to 64000'),
    memoryBytes: read.bytes('CW_BUILD_MEMORY', DEFAULT_BUILD_LIMITS.memoryBytes, { min: 64 * 1024 * 1024 }),
    diskBytes: read.bytes('CW_BUILD_DISK', DEFAULT_BUILD_LIMITS.diskBytes, { min: 64 * 1024 * 1024 }),
    deadlineSeconds: Math.ceil(read.durationMs('CW_BUILD_DEADLINE', DEFAULT_BUILD_LIMITS.deadlineSeconds * 1000, { min: 1000, max: 6 * 3600 * 1000 }) / 1000),
  };
  const total = read.integer('CW_BUILD_CONCURRENCY', 2, { min: 1, max: 1000 });
  const perProject = read.integer('CW_BUILD_CONCURRENCY_PER_PROJECT', 1, { min: 1, max: 1000 });
  if (perProject > total) throw new ConfigError(`CW_BUILD_CONCURRENCY_PER_PROJECT (${perProject}) must not be more than CW_BUILD_CONCURRENCY (${total})`);
  const perUser = read.integer('CW_BUILD_CONCURRENCY_PER_USER', perProject, { min: 1, max: 1000 });
  if (perUser > total) throw new ConfigError(`CW_BUILD_CONCURRENCY_PER_USER (${perUser}) must not be more than CW_BUILD_CONCURRENCY (${total})`);
  if (perUser < perProject) throw new ConfigError(`CW_BUILD_CONCURRENCY_PER_USER (${perUser}) must not be less than CW_BUILD_CONCURRENCY_PER_PROJECT (${perProject})`);
  const previewGraceMs = read.durationMs('CW_PREVIEW_GRACE', DEFAULT_PREVIEW_GRACE_MS, { min: 0, max: 30 * 24 * 3600 * 1000 });
  const resyncMs = read.durationMs('CW_BUILD_RESYNC', DEFAULT_RESYNC_MS, { min: 1000, max: 24 * 3600 * 1000 });
  const projectUnpackedQuota = read.bytes('CW_PROJECT_UNPACKED_QUOTA', DEFAULT_PROJECT_UNPACKED_QUOTA);
  const sources: SourceCopyLimits = {
    maxRepositoryBytes: read.bytes('CW_BUILD_MAX_REPOSITORY', DEFAULT_SOURCE_COPY_LIMITS.maxRepositoryBytes, { min: 1024 * 1024 }),
    cacheBytes: read.bytes('CW_BUILD_REPOSITORY_CACHE', DEFAULT_SOURCE_COPY_LIMITS.cacheBytes),
  };
  if (!runner) return undefined;
  return Object.freeze({
    runner: runner as 'local' | 'job',
    workDir,
    sources: Object.freeze(sources),
    limits: Object.freeze(limits),
    concurrency: Object.freeze({ total, perProject, perUser }),
    previewGraceMs,
    resyncMs,
    projectUnpackedQuota,
  });
}
