// Which host names route to which app. Pure, so the conflict rules are table-tested.

/** An app as far as routing by host is concerned. */
export interface HostClaim {
  /** `<project>/<appId>`. */
  readonly key: string;
  readonly project: string;
  readonly appId: string;
  /** Extra exact host names (deploy hostnames, finalized custom domains). */
  readonly hostnames: readonly string[];
}

/** The host every app is served on: `<appId>.<project>.<baseDomain>`. */
export function defaultHost(project: string, appId: string, baseDomain: string): string {
  return `${appId}.${project}.${baseDomain}`.toLowerCase();
}

/** The app whose default host `host` is (lowercase, as {@link defaultHost} makes them), if it is one. */
export function defaultHostOwner(host: string, baseDomain: string): { project: string; appId: string } | undefined {
  const suffix = `.${baseDomain.toLowerCase()}`;
  if (!host.endsWith(suffix)) return undefined;
  const labels = host.slice(0, -suffix.length).split('.');
  const [appId, project] = labels;
  return labels.length === 2 && appId && project ? { project, appId } : undefined;
}

/**
 * The host of a `Host` header as routed: lowercase, without port or trailing dot. `undefined` when there
 * is no usable host (a missing header, or an IPv6 literal, which never names an app).
 */
export function normalizeHost(header: string | undefined): string | undefined {
  if (!header || header.startsWith('[')) return undefined;
  const colon = header.indexOf(':');
  let host = (colon === -1 ? header : header.slice(0, colon)).toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host || undefined;
}

/**
 * Assigns host names to apps. Default hosts always belong to their app. An explicit host name that several apps
 * ask for is served for none of them: which app answers a name must not depend on which asked first, on this
 * replica's age or on its start order (every replica decides alike). Across projects the admission rule
 * (src/platform/host-admission.ts) has already given each name to one project; this is the same decision within
 * one project, whose two apps bound the same name (the API refuses that; `kubectl apply` cannot).
 */
export function assignHosts(claims: readonly HostClaim[], baseDomain: string): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const claim of claims) hosts.set(defaultHost(claim.project, claim.appId, baseDomain), claim.key);
  const contenders = new Map<string, Set<string>>();
  for (const claim of claims) {
    for (const raw of claim.hostnames) {
      const host = normalizeHost(raw);
      if (!host || hosts.has(host)) continue;
      contenders.set(host, (contenders.get(host) ?? new Set()).add(claim.key));
    }
  }
  for (const [host, keys] of contenders) if (keys.size === 1) hosts.set(host, [...keys][0] ?? '');
  return hosts;
}

/** The host names several apps ask for, served for none of them (for the log). */
export function contestedHosts(claims: readonly HostClaim[], baseDomain: string): string[] {
  const assigned = assignHosts(claims, baseDomain);
  return [...new Set(claims.flatMap((c) => c.hostnames.map(normalizeHost)))].filter((h): h is string => h !== undefined && !assigned.has(h)).sort();
}

/** The hosts of `key` in an assignment, its default host first. */
export function hostsOf(key: string, assignment: ReadonlyMap<string, string>, defaultHostName: string): string[] {
  const rest = [...assignment].filter(([host, owner]) => owner === key && host !== defaultHostName).map(([host]) => host);
  return [defaultHostName, ...rest.sort()];
}
