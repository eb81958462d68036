// The names of apps' hosts: every app's default host, and a Host header as routed. Which app a name routes to is
// src/runtime-contract/host-assignment.ts.

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
