import { findCondition, removeCondition, setCondition, type Condition } from './conditions.ts';

/**
 * Ready reasons that wait for a person, per kind: the object will not converge by itself (a build that cannot
 * load, a name another project holds, a Secret it may not own…). Such an object also says `Stalled` True, which
 * kstatus (Flux's `wait`, `kubectl wait`) reads as failed at once instead of waiting for its timeout; Argo CD's
 * health snippet (docs/argocd-health/cloudwright.lua) names the same reasons Degraded, and a test keeps the two equal.
 */
export const STALLED_REASONS: Readonly<Record<string, readonly string[]>> = {
  RuntimeApp: ['BuildFailed', 'BuildNotFound', 'CPULimitExceeded', 'MemoryLimitExceeded', 'DatabaseNotFound', 'QuotaExceeded', 'RolloutAborted', 'HostnamesRefused', 'InsufficientStorage'],
  Database: ['RestoreSourceNotFound', 'RestorePointUnavailable', 'TokenSecretConflict', 'TokenSecretForbidden', 'TokenInUse', 'LimitOutOfRange'],
  ProjectDomain: [
    'InvalidDomain',
    'DomainTaken',
    'DomainTakenOver',
    'ReservedDomain',
    'UnderAnotherProject',
    'TooManyDomains',
    'ZoneDeletionFailed',
    'ProviderNotOwned',
    'ProviderRejected',
    'ProviderLimitExceeded',
    'ProviderAccessDenied',
    'ProviderInvalid',
  ],
  DnsRecord: ['RecordConflicts', 'ProviderNotOwned', 'ProviderRejected', 'ProviderLimitExceeded', 'ProviderAccessDenied', 'ProviderInvalid'],
  AppHostname: ['AppNotFound', 'TooManyHostnames', 'HostnameTaken', 'NoRuntimeTarget'],
  RepositoryWebhook: ['SecretNotFound', 'InvalidSecret', 'TargetRefused'],
  Repository: ['NameConflict', 'RepositoryExists', 'RepositoryLost', 'InvalidName', 'OwnerNotAllowed', 'StoreError'],
  AppSource: ['BuildFailed', 'DeployFailed', 'BranchNotFound', 'AppNotFound', 'RepositoryNotFound'],
};

/**
 * `conditions` with `Stalled` following Ready: True (Ready's reason and message) while Ready is False for a reason
 * of `kind` that waits for a person, absent otherwise. Pure; the status' only writer calls it before it writes.
 */
export function withStalled(kind: string, conditions: readonly Condition[] | undefined, generation: number | undefined, now: Date): Condition[] {
  const ready = findCondition(conditions, 'Ready');
  const stalled = ready?.status === 'False' && (STALLED_REASONS[kind] ?? []).includes(ready.reason);
  if (!stalled) return removeCondition(conditions, 'Stalled').conditions;
  return setCondition(conditions, { type: 'Stalled', status: 'True', reason: ready.reason, message: ready.message ?? '' }, generation, now).conditions;
}
