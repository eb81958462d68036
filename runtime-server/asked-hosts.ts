// The host names an app asks for beyond its default host, as a replica routes them: its deploy host names and its
// active AppHostnames, each admitted by the name claims (src/platform/host-admission.ts).
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import { isActiveHostname, serveRefusal, type NameFacts } from '../src/platform/host-admission.ts';

/** The app's active AppHostnames, sorted (a change of the set is a change of what to serve). */
export function attachedHostnames(hostnames: { list(namespace?: string): readonly AppHostname[] } | undefined, namespace: string, name: string): string[] {
  return (hostnames?.list(namespace) ?? [])
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
