// Which custom host names (outside the runtime's base domain) a deploy may bind. Binding a name routes its
// traffic to the app, so a project may bind only names it has shown it controls: one attached and finalized
// for this app (the TXT challenge or a managed zone proved it, and the name is then already bound), or a
// name inside one of the project's `managed` domains (the project's delegation of the zone proves it).
// Anything else could squat a domain before its owner attaches it.
import { serveRefusal, type NameFacts } from './host-admission.ts';

/**
 * Why `hostname` may not be bound by a deploy, or `undefined` when it may; `bound`: the app's names attached and
 * finalized. Otherwise the project must be allowed to serve it by the one admission rule (host-admission.ts).
 */
export function customHostnameProblem(hostname: string, app: { project: string; appId: string; bound: readonly string[] }, facts: NameFacts): string | undefined {
  if (app.bound.includes(hostname)) return undefined;
  const why = serveRefusal(app.project, hostname, facts);
  if (why === undefined) return undefined;
  return (
    `hostnames: ${hostname} is a custom domain this project has not shown it controls (${why}). Attach it first ` +
    `(POST /v1/projects/${app.project}/apps/${app.appId}/domains, then …/domains/${hostname}/finalize), or add ` +
    `its domain to the project and delegate it (a managed project domain covers its subdomains).`
  );
}
