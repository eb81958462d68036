/**
 * A value as the engine binds and returns it: integers are bigints so that 64-bit values survive, floats are
 * numbers, blobs are bytes.
 */
export type SqlValue = null | bigint | number | string | Uint8Array;
