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

  constructor(code: number, message: string, reason?: string, retryAfterSeconds?: number) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Builds the error from a response body, which is a `Status` object when the apiserver produced it. */
  static fromResponse(code: number, body: unknown, retryAfterSeconds?: number): KubeApiError {
    const status = parseStatus(body);
    const message = status?.message ?? `apiserver answered HTTP ${code}`;
    return new KubeApiError(code, message, status?.reason, retryAfterSeconds);
  }
}

function parseStatus(body: unknown): { message?: string; reason?: string } | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { message, reason } = value as Record<string, unknown>;
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
  };
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
