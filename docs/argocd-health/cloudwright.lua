-- Argo CD resource health of Cloudwright's kinds (docs/gitops.md, "Argo CD"): install this one snippet as
-- resource.customizations.health.cloudwright.dev_<Kind> for each kind of the table below.
-- Ready True is Healthy. Otherwise Ready's reason decides: those that need a person are Degraded, those that mean
-- "paused on purpose" Suspended, any other Progressing. A status written for an older generation is Progressing
-- whatever it says, as kstatus (Flux's wait) reads it. Lua 5.1 (Argo CD's gopher-lua), no library calls.
local reasons = {
  RuntimeApp = { degraded = { BuildFailed = true, BuildNotFound = true, CPULimitExceeded = true, MemoryLimitExceeded = true, DatabaseNotFound = true, QuotaExceeded = true, RolloutAborted = true, HostnamesRefused = true, InsufficientStorage = true }, suspended = { NoBuild = true } },
  Database = { degraded = { RestoreSourceNotFound = true, RestorePointUnavailable = true, TokenSecretConflict = true, TokenSecretForbidden = true, TokenInUse = true, LimitOutOfRange = true }, suspended = {} },
  ProjectDomain = { degraded = { InvalidDomain = true, DomainTaken = true, DomainTakenOver = true, ReservedDomain = true, UnderAnotherProject = true, TooManyDomains = true, ZoneDeletionFailed = true, ProviderNotOwned = true, ProviderRejected = true, ProviderLimitExceeded = true, ProviderAccessDenied = true, ProviderInvalid = true }, suspended = {} },
  DnsRecord = { degraded = { RecordConflicts = true, ProviderNotOwned = true, ProviderRejected = true, ProviderLimitExceeded = true, ProviderAccessDenied = true, ProviderInvalid = true }, suspended = {} },
  AppHostname = { degraded = { AppNotFound = true, TooManyHostnames = true, HostnameTaken = true, NoRuntimeTarget = true }, suspended = { AwaitingFinalize = true } },
  RepositoryWebhook = { degraded = { SecretNotFound = true, InvalidSecret = true, TargetRefused = true }, suspended = { Inactive = true } },
  Repository = { degraded = { NameConflict = true, RepositoryExists = true, RepositoryLost = true, InvalidName = true, OwnerNotAllowed = true, StoreError = true }, suspended = {} },
  AppSource = { degraded = { BuildFailed = true, DeployFailed = true, BranchNotFound = true, AppNotFound = true, RepositoryNotFound = true }, suspended = { BuildCancelled = true } },
}
local kind = reasons[obj.kind] or { degraded = {}, suspended = {} }
local hs = { status = "Progressing", message = "Waiting for the controller" }
if obj.status == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration ~= obj.metadata.generation then
  hs.message = "Waiting for the controller to observe generation " .. obj.metadata.generation
  return hs
end
for _, condition in ipairs(obj.status.conditions or {}) do
  if condition.type == "Ready" then
    hs.message = condition.message
    if condition.status == "True" then
      hs.status = "Healthy"
    elseif kind.degraded[condition.reason] then
      hs.status = "Degraded"
    elseif kind.suspended[condition.reason] then
      hs.status = "Suspended"
    end
    return hs
  end
end
return hs
