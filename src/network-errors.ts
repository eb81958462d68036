/** Transport failures (Node and undici codes): the request never got an answer, so trying again may work. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/**
 * Whether `err`, or one of its first few `cause`s (SDKs wrap the socket error), carries a transport
 * failure code. Shared by the AWS adapters so S3 and Route 53 agree on what "unreachable" means.
 */
export function isNetworkError(err: unknown): boolean {
  return hasCode(err, NETWORK_ERROR_CODES);
}

/**
 * Whether `err` (or a cause) says this process has no file descriptor left (`EMFILE`, or the system none,
 * `ENFILE`): a failure of the caller's, not of whatever it tried to reach.
 */
export function isOutOfDescriptors(err: unknown): boolean {
  return hasCode(err, OUT_OF_DESCRIPTORS);
}

const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/** Failures to connect at all: the peer refused, or its name or route is not there. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether `err` (or a cause) says the request never left this process: nothing of it ran at the peer, so it may be
 * sent again whatever it does. Unlike {@link isNetworkError}, a reset or a timeout is not that.
 */
export function isUnsentRequest(err: unknown): boolean {
  return hasCode(err, UNSENT_CODES);
}

/** Whether `err`, or one of its first few `cause`s (SDKs and fetch wrap the socket error), has one of `codes`. */
function hasCode(err: unknown, codes: ReadonlySet<string>): boolean {
  for (let cause: unknown = err, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
