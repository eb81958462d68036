// Which custom host names (outside the runtime's base domain) a deploy may bind. Binding a name routes its
// traffic to the app, so a project may bind only names it has shown it controls: one attached and finalized
// for this app (the TXT challenge or a managed zone proved it, and the name is then already bound), or a
// name inside one of the project's `managed` domains (the project's delegation of the zone proves it).
// Anything else could squat a domain before its owner attaches it.
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { isInZone } from '../dns/names.ts';

/** The domains (lowercase) a project controls: its project domains whose delegation is verified. */
/**
 * The domains a project holds, as cw-runtime serves deploy host names under them: active ones with a hosted
 * zone (so its DomainClaim), not being deleted, whatever their delegation says right now: a domain the hourly
 * re-check briefly demotes keeps its apps up, as its active AppHostnames stay too.
 */
export function heldDomainNames(domains: readonly ProjectDomain[]): string[] {
  return domains.filter((d) => d.spec.deleted !== true && !d.metadata?.deletionTimestamp && d.status?.hostedZoneId).map((d) => d.spec.domain.toLowerCase());
}

export function managedDomainNames(domains: readonly ProjectDomain[]): string[] {
  return domains.filter((d) => d.spec.deleted !== true && d.status?.state === 'managed').map((d) => d.spec.domain.toLowerCase());
}

/** Why `hostname` may not be bound by a deploy, or `undefined` when it may; `bound`: the app's names attached and finalized. */
export function customHostnameProblem(hostname: string, app: { project: string; appId: string; bound: readonly string[] }, managedDomains: readonly string[]): string | undefined {
  if (app.bound.includes(hostname)) return undefined;
  if (managedDomains.some((domain) => isInZone(hostname, domain))) return undefined;
  return (
    `hostnames: ${hostname} is a custom domain this project has not shown it controls. Attach it first ` +
    `(POST /v1/projects/${app.project}/apps/${app.appId}/domains, then …/domains/${hostname}/finalize), or add ` +
    `its domain to the project and delegate it (a managed project domain covers its subdomains).`
  );
}
