/** The ACME error types a client acts on (RFC 8555 §6.7); others are reported as they come. */
export const ACME_ERROR = 'urn:ietf:params:acme:error:';

/** An ACME server's problem document (RFC 7807 with RFC 8555's types and subproblems), as an error. */
export class AcmeProblem extends Error {
  /** The type without the ACME namespace: `badNonce`, `rateLimited`, `caa`, `dns`, `unauthorized`, … */
  readonly kind: string;
  readonly status: number;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;
  readonly subproblems: ReadonlyArray<{ readonly type: string; readonly detail?: string; readonly identifier?: { readonly value: string } }>;

  constructor(status: number, body: unknown, retryAfterSeconds?: number) {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as { type?: unknown; detail?: unknown; subproblems?: unknown };
    const type = typeof problem.type === 'string' ? problem.type : 'about:blank';
    const detail = typeof problem.detail === 'string' ? problem.detail : `the ACME server answered ${status}`;
    super(detail);
    this.name = 'AcmeProblem';
    this.kind = type.startsWith(ACME_ERROR) ? type.slice(ACME_ERROR.length) : type;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.subproblems = Array.isArray(problem.subproblems) ? (problem.subproblems as AcmeProblem['subproblems']) : [];
  }

  /** One line for a status or an Event: the kind, the detail and each subproblem's. */
  describe(): string {
    const subs = this.subproblems.map((p) => `${p.identifier?.value ?? ''}: ${p.detail ?? p.type}`.trim());
    return `${this.kind}: ${this.message}${subs.length > 0 ? ` (${subs.join('; ')})` : ''}`;
  }
}
