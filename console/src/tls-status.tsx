// The certificate of a host name or a domain: its state, when it expires, and why its last order failed.
import type { paths } from './api/schema.ts';

export type Tls = paths['/v1/projects/{projectId}/domains/{domain}']['get']['responses'][200]['content']['application/json']['domain']['tls'];

/** The date of an ISO 8601 instant, the whole instant on hover and for assistive technology. */
function Day({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {iso.slice(0, 10)}
    </time>
  );
}

/** One line, for a table cell: `issued, expires 2027-02-27`, `failed — why`, the state, or `none`. */
export function TlsSummary({ tls }: { tls: Tls }) {
  if (tls.status === 'none') return <span class="muted">none</span>;
  return (
    <>
      <span class={tls.status === 'failed' ? 'warn' : tls.status === 'issued' || tls.status === 'renewing' ? 'ok' : undefined}>{tls.status}</span>
      {tls.not_after && (
        <>
          , expires <Day iso={tls.not_after} />
        </>
      )}
      {tls.last_error && <span class="muted"> — {tls.last_error.message}</span>}
    </>
  );
}

/** The domain page's account of its certificate (for the domain and its wildcard). */
export function TlsDetails({ tls, domain }: { tls: Tls; domain: string }) {
  if (tls.status === 'none')
    return (
      <p class="muted">
        No certificate yet: one for {domain} and *.{domain} is ordered once the domain is managed, where this platform issues certificates.
      </p>
    );
  return (
    <dl>
      <dt>State</dt>
      <dd class={tls.status === 'failed' ? 'warn' : undefined}>{tls.status}</dd>
      <dt>Expires</dt>
      <dd>{tls.not_after ? <Day iso={tls.not_after} /> : '—'}</dd>
      <dt>Issuer</dt>
      <dd>{tls.issuer ?? '—'}</dd>
      {tls.last_error && (
        <>
          <dt>Last error</dt>
          <dd>
            {tls.last_error.message}{' '}
            <span class="muted">
              ({tls.last_error.reason}, <time dateTime={tls.last_error.at}>{tls.last_error.at}</time>)
            </span>
          </dd>
        </>
      )}
      {tls.next_attempt_at && (
        <>
          <dt>Next attempt</dt>
          <dd>
            <time dateTime={tls.next_attempt_at}>{tls.next_attempt_at}</time>
          </dd>
        </>
      )}
    </dl>
  );
}
