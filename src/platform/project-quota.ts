// How many objects of each kind one project's namespace may hold, whoever writes them. The API checks its own
// limits against its cache before it writes (and answers 409 with a detail of its own), but `kubectl apply` and
// GitOps tools write straight to the apiserver: these counts hold for them through Kubernetes' own object-count
// quota, a ResourceQuota with `count/<plural>.cloudwright.dev` that the Project controller keeps in every
// project's namespace. The numbers are the API's limits (or what they add up to per project), so the quota never
// refuses what the API would allow.
import { MAX_APP_HOSTNAMES } from '../apis/v1alpha1/runtime-app.ts';
import { MAX_SOURCE_BUILDS_PER_APP } from '../apis/v1alpha1/source-build.ts';
import { countQuantity, GROUP, type KubeObject, type QuotaRefusal } from '../kube/index.ts';
import { MAX_APPS_PER_PROJECT } from './apps.ts';
import { MAX_BUILDS_PER_APP } from './builds.ts';
import { MAX_DATABASES_PER_PROJECT } from './databases/databases.ts';
import { MAX_RECORDS_PER_DOMAIN } from './domains/dns-records.ts';
import { MAX_DELETED_DOMAINS_KEPT, MAX_DOMAINS_PER_PROJECT } from './domains/project-domains.ts';
import { MAX_ACTIVE_GIT_TOKENS_PER_PROJECT, MAX_INACTIVE_GIT_TOKENS_KEPT } from './git-tokens.ts';
import { PROJECT_LABEL } from './resources.ts';

/** A ResourceQuota as far as the project quota needs it. */
export interface ResourceQuota extends KubeObject {
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/**
 * Whether kube-controller-manager has counted `quota` as its spec now reads: until then the apiserver refuses
 * creates of the kinds it counts ("status unknown for quota"), which the API answers 503 to retry.
 */
export function quotaCounted(quota: ResourceQuota | undefined): boolean {
  const counted = Object.keys(quota?.spec?.hard ?? {});
  return counted.length > 0 && counted.every((resource) => quota?.status?.used?.[resource] !== undefined && quota.status.hard?.[resource] === quota.spec?.hard?.[resource]);
}

/** The ResourceQuota's name in each project namespace. */
export const PROJECT_QUOTA_NAME = 'cloudwright-project';

/** Repositories one project may hold (no API route creates them in a project yet: this bounds manifests). */
export const MAX_REPOSITORIES_PER_PROJECT = 100;

/** RepositoryWebhooks one project's namespace may hold (cw-git delivers those of its webhook namespace only). */
export const MAX_REPOSITORY_WEBHOOKS_PER_PROJECT = 100;

/**
 * Objects one project's namespace may hold, by the kind's plural. Where the API keeps history and prunes it only
 * as it goes (the prune runs after a create), the count leaves room for what is pruned late, so the quota can
 * never refuse the create that would prune: builds are each app's kept builds and the one a deploy adds before
 * it prunes; project domains the active ones, as many again being deleted (their zones going) and the deleted
 * ones kept as history; git tokens the live ones, the inactive ones kept, and a whole generation of live ones
 * expired at once before the next token made prunes them.
 */
export const PROJECT_OBJECT_COUNTS: Readonly<Record<string, number>> = {
  runtimeapps: MAX_APPS_PER_PROJECT,
  builds: MAX_APPS_PER_PROJECT * (MAX_BUILDS_PER_APP + 1),
  apphostnames: MAX_APPS_PER_PROJECT * MAX_APP_HOSTNAMES,
  projectdomains: 2 * MAX_DOMAINS_PER_PROJECT + MAX_DELETED_DOMAINS_KEPT,
  dnsrecords: MAX_DOMAINS_PER_PROJECT * MAX_RECORDS_PER_DOMAIN,
  databases: MAX_DATABASES_PER_PROJECT,
  repositories: MAX_REPOSITORIES_PER_PROJECT,
  repositorywebhooks: MAX_REPOSITORY_WEBHOOKS_PER_PROJECT,
  gittokens: 2 * MAX_ACTIVE_GIT_TOKENS_PER_PROJECT + MAX_INACTIVE_GIT_TOKENS_KEPT,
  // One per host name, and one per domain (its apex and wildcard).
  tlscertificates: MAX_APPS_PER_PROJECT * MAX_APP_HOSTNAMES + MAX_DOMAINS_PER_PROJECT,
  appsources: MAX_APPS_PER_PROJECT,
  // Kept per app (preview apps are apps), and one running per app beside them.
  sourcebuilds: MAX_APPS_PER_PROJECT * (MAX_SOURCE_BUILDS_PER_APP + 1),
};

/** What each counted kind is called in messages. */
const NOUNS: Readonly<Record<string, string>> = {
  runtimeapps: 'apps',
  builds: 'builds',
  apphostnames: 'app host names',
  projectdomains: 'domains (deleted ones and those being deleted included)',
  dnsrecords: 'DNS records',
  databases: 'databases',
  repositories: 'repositories',
  repositorywebhooks: 'repository webhooks',
  gittokens: 'git tokens (revoked and expired ones kept as history included)',
  tlscertificates: 'TLS certificates',
  appsources: 'app sources',
  sourcebuilds: 'source builds',
};

/** The quota's resource name of a Cloudwright kind's plural: `count/runtimeapps.cloudwright.dev`. */
export function countResource(plural: string): string {
  return `count/${plural}.${GROUP}`;
}

/** The plural a quota resource name counts (`count/runtimeapps.cloudwright.dev` → `runtimeapps`), if it is one of ours. */
export function countedPlural(resource: string): string | undefined {
  const match = /^count\/([a-z0-9]+)\.(.+)$/.exec(resource);
  return match?.[2] === GROUP ? match[1] : undefined;
}

/** The `spec.hard` of the project quota: each count as a quantity. */
export function projectQuotaHard(): Record<string, string> {
  return Object.fromEntries(Object.entries(PROJECT_OBJECT_COUNTS).map(([plural, count]) => [countResource(plural), String(count)]));
}

/** The ResourceQuota of `project`'s namespace, as the Project controller applies it. */
export function projectResourceQuota(project: string): ResourceQuota & { spec: { hard: Record<string, string> } } {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: PROJECT_QUOTA_NAME, namespace: project, labels: { [PROJECT_LABEL]: project } },
    spec: { hard: projectQuotaHard() },
  };
}

/**
 * Whether `quota` as stored lacks one of the counts or holds another number for it (the apiserver writes counts
 * back in canonical form, `50k` for 50000, so they are compared as numbers). Limits someone else added are left be.
 */
export function projectQuotaDrifted(quota: ResourceQuota | undefined): boolean {
  const hard = quota?.spec?.hard ?? {};
  return Object.entries(PROJECT_OBJECT_COUNTS).some(([plural, count]) => countQuantity(hard[countResource(plural)]) !== count);
}

/**
 * What a caller is told when the apiserver's quota refused a write into a project's namespace: which count is
 * full (by any ResourceQuota of the namespace, an administrator's own included), or that the quota is still being
 * counted (a namespace quota written moments after its kinds were defined).
 */
export function quotaRefusalDetail(refusal: QuotaRefusal): string {
  if (refusal.kind === 'status-unknown') return `The project's quota (${refusal.quota}) is still being counted; retry in a few seconds.`;
  const counts = refusal.exceeded.map(({ resource, used, limited }) => {
    const plural = countedPlural(resource);
    return `${used} ${plural ? (NOUNS[plural] ?? plural) : resource} of the ${limited} its quota ${refusal.quota} allows`;
  });
  return `The project has ${counts.join(' and ')}; delete some first.`;
}
