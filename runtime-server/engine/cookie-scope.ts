// Which domains an app's `Set-Cookie` may name. Every app's default host is `<app>.<project>.<baseDomain>`: a cookie
// with `Domain=<baseDomain>` would be sent by browsers to every other tenant's app (cookie injection, session
// fixation, and enough of them make every request of that browser too large to answer). Unless the operator got the
// base domain onto the Public Suffix List (docs/operating.md), only the entry point can stop it.

/**
 * `value` (one `Set-Cookie` field value of an answer to `host`) as the entry point passes it on: unchanged when it
 * names no `Domain`, or one the app may scope a cookie to; otherwise with its `Domain` attributes taken out, so the
 * cookie is host-only (the app's own host keeps it; no other host is sent it).
 *
 * A domain may be named when it is the request's host or a parent of it (what browsers would accept at all) and is
 * neither the base domain nor a name above it: for a default host that leaves the app's own host and its project's
 * `<project>.<baseDomain>`, all of them the project's; for a custom domain (`shop.example.com`) its parents
 * (`example.com`), which the runtime cannot tell are the project's (a custom domain is proved by DNS, its parent is
 * not) but are not shared with the platform's other tenants unless they too have custom domains under it; browsers
 * refuse a public suffix (`co.uk`) themselves.
 */
export function scopeSetCookie(value: string, host: string | undefined, baseDomain: string | undefined): string {
  const parts = value.split(';');
  const domains = parts.slice(1).flatMap((part) => {
    const eq = part.indexOf('=');
    return eq >= 0 && part.slice(0, eq).trim().toLowerCase() === 'domain' ? [part.slice(eq + 1)] : [];
  });
  if (domains.every((domain) => allowedDomain(domain, host, baseDomain))) return value;
  return [
    parts[0],
    ...parts.slice(1).filter(
      (part) =>
        part
          .slice(0, Math.max(0, part.indexOf('=')))
          .trim()
          .toLowerCase() !== 'domain',
    ),
  ].join(';');
}

/** The name a `Domain` attribute's value stands for: lowercase, without the leading dots browsers ignore or a trailing dot. */
function bare(name: string): string {
  return name.trim().toLowerCase().replace(/^\.+/, '').replace(/\.$/, '');
}

function allowedDomain(raw: string, host: string | undefined, baseDomain: string | undefined): boolean {
  const domain = bare(raw);
  // An empty value is ignored by browsers (RFC 6265 §5.2.3): the cookie is host-only anyway.
  if (domain === '') return true;
  if (host === undefined) return false;
  const at = bare(host);
  if (domain !== at && !at.endsWith(`.${domain}`)) return false;
  if (baseDomain === undefined) return true;
  const base = bare(baseDomain);
  return domain !== base && !base.endsWith(`.${domain}`);
}
