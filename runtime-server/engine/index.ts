// The runtime engine: runtime apps on workerd behind one HTTP entry point. See README.md here and
// docs/runtime.md for the artifact format and the serving rules.
export { DEFAULT_ARTIFACT_LIMITS, DEFAULT_COMPATIBILITY_DATE, parseArtifact, readArtifact } from '../../src/app-artifacts/artifact.ts';
export type { Artifact, ArtifactLimits, ArtifactModule, ArtifactSink, ModuleType, ParseArtifactOptions, ReadArtifactOptions, UnpackedBudget } from '../../src/app-artifacts/artifact.ts';
export { BUILD_CONFIG_FILE } from '../../src/app-artifacts/build-config.ts';
export type { AssetOptions, BuildConfig } from '../../src/app-artifacts/build-config.ts';
export { RuntimeEngine } from './engine.ts';
export type { RuntimeEngineOptions, RuntimeStatus, ShardStatus } from './engine-options.ts';
export type { LimitCounts } from './app-limits.ts';
export type { LimitReason, Quarantine } from './quarantine.ts';
export { ArtifactError, ArtifactTooLargeError, BuildLoadError, BuildQuotaError, InsufficientStorageError } from '../../src/app-artifacts/errors.ts';
export type { ArtifactLimitName } from '../../src/app-artifacts/errors.ts';
export { defaultHost, normalizeHost } from '../../src/runtime-contract/hosts.ts';
export type { RuntimeLogger } from '../../src/runtime-contract/log.ts';
export type { AppDeployment, ArtifactSource, BuildRef, CanaryDeployment, ServedApp } from './ports.ts';
export type { RolloutCounts } from './request-stats.ts';
export { runOfTag } from './canary.ts';
export type { AppLogEntry } from '../../src/runtime-contract/app-logs.ts';
export { resolveWorkerdBinary, workerdCompatibilityDate } from '../../src/app-artifacts/workerd-binary.ts';
