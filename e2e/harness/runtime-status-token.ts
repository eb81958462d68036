import { randomBytes } from 'node:crypto';

/**
 * The runtime status token of a test file's stack (CW_RUNTIME_STATUS_TOKEN): every cw-runtime and cw-api the
 * harness starts gets it, as the chart gives both pods one Secret.
 */
export const RUNTIME_STATUS_TOKEN = randomBytes(24).toString('hex');

/** What cw-api presents on a replica's status port, for tests that read it directly. */
export const STATUS_AUTH = { headers: { authorization: `Bearer ${RUNTIME_STATUS_TOKEN}` } };
