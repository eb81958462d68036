// Reading again until the platform has finished: for an answer the API gave before it had (a 202), which the
// API offers no way to wait on but reading the resource again.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a command keeps reading after a 202 before it says where things stand and stops. */
export const FOLLOW_UP_MS = 60_000;

/**
 * Calls `read` until `done` holds for its value or `timeoutMs` has passed, `intervalMs` apart; answers the
 * last value read and whether `done` held for it.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, intervalMs = 1000): Promise<{ value: T; done: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, done: true };
    if (Date.now() + intervalMs > deadline) return { value, done: false };
    await sleep(intervalMs);
  }
}
