/**
 * An unsuccessful apiserver response. `code` is the HTTP status, `reason` the `Status.reason`
 * (`NotFound`, `Conflict`, `AlreadyExists`, `Expired`, …) when the server sent one.
 */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly code: number;
  readonly reason: string | undefined;
  /** The `Retry-After` the apiserver sent, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** What an Invalid answer found, field by field (`Status.details.causes`), without the messages that quote values. */
  readonly causes: readonly StatusCause[];

  constructor(code: number, message: string, reason?: string, retryAfterSeconds?: number, causes: readonly StatusCause[] = []) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
    this.causes = causes;
  }

  /** Builds the error from a response body, which is a `Status` object when the apiserver produced it. */
  static fromResponse(code: number, body: unknown, retryAfterSeconds?: number): KubeApiError {
    const status = parseStatus(body);
    const message = status?.message ?? `apiserver answered HTTP ${code}`;
    return new KubeApiError(code, message, status?.reason, retryAfterSeconds, status?.causes);
  }
}

/** One of `Status.details.causes`: the field (`spec.template.spec.containers[0].env[2].name`) and the kind of fault (`FieldValueInvalid`). */
export interface StatusCause {
  readonly field?: string;
  readonly reason?: string;
}

function parseStatus(body: unknown): { message?: string; reason?: string; causes?: StatusCause[] } | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { message, reason, details } = value as Record<string, unknown>;
  const causes = (details as { causes?: unknown } | undefined)?.causes;
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(Array.isArray(causes) ? { causes: causes.slice(0, 20).map(statusCause) } : {}),
  };
}

function statusCause(value: unknown): StatusCause {
  const { field, reason } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return { ...(typeof field === 'string' ? { field: field.slice(0, 300) } : {}), ...(typeof reason === 'string' ? { reason: reason.slice(0, 100) } : {}) };
}

/**
 * The HTTP status carried by any error the Kubernetes client can produce: our {@link KubeApiError},
 * client-node's `ApiException` (`code`), a failed watch request (`statusCode`), or a watch `ERROR` event's
 * `Status` object (`code`). `undefined` for transport errors (connection refused, reset, timeout).
 */
export function statusCodeOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, statusCode } = err as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'number') return code;
  if (typeof statusCode === 'number') return statusCode;
  return undefined;
}

export const isNotFound = (err: unknown): boolean => statusCodeOf(err) === 404;
/** 409: a stale `resourceVersion` (optimistic concurrency) or, with reason `AlreadyExists`, a create race. */
export const isConflict = (err: unknown): boolean => statusCodeOf(err) === 409 && (err as { reason?: unknown }).reason !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): boolean => statusCodeOf(err) === 409 && (err as { reason?: unknown }).reason === 'AlreadyExists';
/** 410: the requested `resourceVersion` is too old; a watcher must relist. */
export const isGone = (err: unknown): boolean => statusCodeOf(err) === 410;
