// The runtime engine: runtime apps on workerd behind one HTTP entry point. See README.md here and
// docs/runtime.md for the artifact format and the serving rules.
export { DEFAULT_ARTIFACT_LIMITS, DEFAULT_COMPATIBILITY_DATE, parseArtifact, readArtifact } from './artifact.ts';
export type { Artifact, ArtifactLimits, ArtifactModule, ArtifactSink, ModuleType, ParseArtifactOptions, ReadArtifactOptions, UnpackedBudget } from './artifact.ts';
export { BUILD_CONFIG_FILE } from './build-config.ts';
export type { AssetOptions, BuildConfig } from './build-config.ts';
export { RuntimeEngine } from './engine.ts';
export type { RuntimeEngineOptions, RuntimeStatus, ShardStatus } from './engine-options.ts';
export type { LimitCounts } from './app-limits.ts';
export type { LimitReason, Quarantine } from './quarantine.ts';
export { ArtifactError, ArtifactTooLargeError, BuildLoadError, BuildQuotaError, InsufficientStorageError } from './errors.ts';
export type { ArtifactLimitName } from './errors.ts';
export { defaultHost, normalizeHost } from './hosts.ts';
export type { RuntimeLogger } from './log.ts';
export type { AppDeployment, ArtifactSource, BuildRef, ServedApp } from './ports.ts';
export type { AppLogEntry } from './app-logs.ts';
export { resolveWorkerdBinary, workerdCompatibilityDate } from './workerd-process.ts';
