// The host names an app asks for beyond its default host, as every replica routes them and the operator reports
// them: its deploy host names and its active AppHostnames, each admitted by the name claims
// (src/platform/host-admission.ts). Both sides decide from the objects alone, never from how a deploy went, so they
// say the same names.
import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { isActiveHostname, serveRefusal, type NameFacts } from '../platform/host-admission.ts';
import { servingPlan } from './releases.ts';
import { DNS_LABEL_PATTERN } from '../apis/v1alpha1/strings.ts';
import { sharedIndex, type IndexedSource, type InformerIndex } from '../kube/informer-index.ts';
import { hostnameAppKey } from './listed-hosts.ts';

/**
 * Whether `app` is routed, asking for its host names: it has something to serve (a build, not being deleted, not
 * held back for its migrations with nothing served before). Routed whether or not its build loads or its database
 * variables resolve: a request then gets the app's own answer (what it served before, or a 503 saying why).
 */
export function isRouted(app: RuntimeApp): boolean {
  // A name the runtime cannot serve (not a DNS label: `my.app` is a valid object name) routes nowhere.
  const ids = [app.metadata?.namespace ?? '', app.metadata?.name ?? ''];
  if (!ids.every((id) => DNS_LABEL.test(id))) return false;
  return Boolean(app.spec.activeBuildId) && !app.metadata?.deletionTimestamp && servingPlan(app).kind !== 'held';
}

/** What an app's project and name must be for its default host (`<app>.<project>.<base>`): DNS labels. */
const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);

/** AppHostnames indexed by the app they name (`hostnameAppKey`): what {@link attachedHostnames} reads. */
export type HostnamesByApp = Pick<InformerIndex<AppHostname>, 'objects'>;

/**
 * The index of `hostnames` by app, one per cache. Make it before subscribing a handler that reads it, so it has
 * seen each event by the time that handler runs (a cache calls its handlers in the order they subscribed).
 */
export function hostnamesByApp(hostnames: IndexedSource<AppHostname> & { list(): readonly AppHostname[] }): HostnamesByApp {
  return sharedIndex(hostnames, 'app', (h) => {
    const key = hostnameAppKey(h);
    return key === undefined ? [] : [key];
  });
}

/** The app's active AppHostnames, sorted (a change of the set is a change of what to serve). */
export function attachedHostnames(byApp: HostnamesByApp | undefined, namespace: string, name: string): string[] {
  return (byApp?.objects(`${namespace}/${name}`) ?? [])
    .filter((h) => h.metadata?.namespace === namespace && h.spec.appRef.name === name && isActiveHostname(h))
    .map((h) => h.spec.hostname)
    .sort();
}

/** `hosts` split by the admission rule into those `project` may serve and those it may not (with why). */
export function servable(project: string, hosts: readonly string[], facts: NameFacts): { served: string[]; refused: string[] } {
  const served: string[] = [];
  const refused: string[] = [];
  for (const host of hosts) {
    const why = serveRefusal(project, host.toLowerCase().replace(/\.$/, ''), facts);
    if (why === undefined) served.push(host);
    else refused.push(`${host}: ${why}`);
  }
  return { served, refused };
}
