// The `tls` block of the hostname and project-domain views: where the certificate of a name stands, from the
// TlsCertificate the operator keeps for it (its status has one writer, the certificate controller). Pure.
import type { TlsCertificate, TlsCertificateState } from '../../apis/v1alpha1/tls-certificate.ts';

/** `none`: no certificate exists for it (TLS is not configured on this install, or none is ordered yet). */
export type TlsStatus = 'none' | 'pending' | 'issuing' | 'issued' | 'renewing' | 'failed';

export interface TlsErrorView {
  /** CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, … */
  reason: string;
  message: string;
  at: string;
}

export interface TlsView {
  status: TlsStatus;
  /** Expiry of the certificate served, when one is. */
  not_after: string | null;
  issuer: string | null;
  /** The last failed order, kept until a certificate is issued (also while a renewal keeps failing). */
  last_error: TlsErrorView | null;
  /** After a failure: when the next order is placed. */
  next_attempt_at: string | null;
}

const STATUS: Record<TlsCertificateState, TlsStatus> = { Pending: 'pending', Issuing: 'issuing', Issued: 'issued', Renewing: 'renewing', Failed: 'failed' };

export const NO_TLS: TlsView = Object.freeze({ status: 'none', not_after: null, issuer: null, last_error: null, next_attempt_at: null }) as TlsView;

/** The view of `cert`, or {@link NO_TLS} when there is none; a certificate the controller has not looked at yet is `pending`. */
export function tlsView(cert: TlsCertificate | undefined): TlsView {
  if (!cert) return { ...NO_TLS };
  const s = cert.status;
  const error = s?.lastError;
  return {
    status: s?.state ? STATUS[s.state] : 'pending',
    not_after: s?.notAfter ?? null,
    issuer: s?.issuer ?? null,
    last_error: error ? { reason: error.reason, message: error.message, at: error.at } : null,
    next_attempt_at: s?.nextAttemptAt ?? null,
  };
}
