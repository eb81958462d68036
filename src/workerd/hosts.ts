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
 * Assigns host names to apps. Default hosts always belong to their app. An explicit host name claimed
 * by several apps stays with the app that had it in `previous` (so a new claim never takes a host away
 * from a serving app); otherwise the smallest key wins, so the outcome does not depend on order.
 */
export function assignHosts(claims: readonly HostClaim[], baseDomain: string, previous: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const hosts = new Map<string, string>();
  const sorted = [...claims].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const claim of sorted) hosts.set(defaultHost(claim.project, claim.appId, baseDomain), claim.key);
  const contenders = new Map<string, string[]>();
  for (const claim of sorted) {
    for (const raw of claim.hostnames) {
      const host = normalizeHost(raw);
      if (!host || hosts.has(host)) continue;
      const list = contenders.get(host) ?? [];
      if (!list.includes(claim.key)) list.push(claim.key);
      contenders.set(host, list);
    }
  }
  for (const [host, keys] of contenders) {
    const incumbent = previous.get(host);
    hosts.set(host, incumbent !== undefined && keys.includes(incumbent) ? incumbent : (keys[0] ?? ''));
  }
  return hosts;
}

/** The hosts of `key` in an assignment, its default host first. */
export function hostsOf(key: string, assignment: ReadonlyMap<string, string>, defaultHostName: string): string[] {
  const rest = [...assignment].filter(([host, owner]) => owner === key && host !== defaultHostName).map(([host]) => host);
  return [defaultHostName, ...rest.sort()];
}
