import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { isInZone } from '../dns/names.ts';
import type { InformerIndex } from '../kube/informer-index.ts';
import { keyOf } from '../kube/types.ts';
import { normalizeHost } from './hosts.ts';

/**
 * The host names an app's spec lists (`spec.hostnames`), normalised: what an index of apps by listed host
 * (`InformerIndex`) keys them by, so a lookup by host replaces a scan of every app of the cluster.
 */
export function listedHostsOf(app: RuntimeApp): string[] {
  return (app.spec.hostnames ?? []).map(normalizeHost).filter((h): h is string => h !== undefined);
}

/** The host an AppHostname attaches, normalised: what an index of AppHostnames by host keys them by. */
export function attachedHostOf(h: AppHostname): string[] {
  const host = normalizeHost(h.spec?.hostname);
  return host === undefined ? [] : [host];
}

/** The key (`namespace/name`) of the app an AppHostname names, if it names one. */
export function hostnameAppKey(h: AppHostname): string | undefined {
  const namespace = h.metadata?.namespace;
  return namespace && h.spec?.appRef?.name ? keyOf(namespace, h.spec.appRef.name) : undefined;
}

/** The apps that ask for `host` (normalised) by these indexes: listing it in their spec, or named by its AppHostname. */
export function appsNamed(host: string, listed: InformerIndex<RuntimeApp> | undefined, attached: InformerIndex<AppHostname> | undefined): Set<string> {
  const keys = new Set(listed?.keys(host) ?? []);
  for (const h of attached?.objects(host) ?? []) {
    const key = hostnameAppKey(h);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

/**
 * The apps with a listed or attached host name in `zone` (normalised): those a claim on the zone may give a name
 * or take one from. A walk over the custom host names indexed, not over every app.
 */
export function appsNamedInZone(zone: string, listed: InformerIndex<RuntimeApp> | undefined, attached: InformerIndex<AppHostname> | undefined): Set<string> {
  const keys = new Set<string>();
  for (const host of new Set([...(listed?.values() ?? []), ...(attached?.values() ?? [])])) {
    if (isInZone(host, zone)) for (const key of appsNamed(host, listed, attached)) keys.add(key);
  }
  return keys;
}
