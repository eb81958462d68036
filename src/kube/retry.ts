import { isConflict } from './api-error.ts';

/** Read-modify-write rounds before a conflict is given up to the caller, as client-go's `DefaultRetry` (5). */
export const CONFLICT_RETRIES = 5;

/**
 * Runs `write` (which reads the object fresh and writes it conditional on that read's resourceVersion) again
 * after a 409 Conflict, up to {@link CONFLICT_RETRIES} times with a short jittered pause, as client-go's
 * `RetryOnConflict`. Any other error, and the last conflict, propagate.
 */
export async function retryOnConflict<T>(write: () => Promise<T>, attempts = CONFLICT_RETRIES): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
      // As client-go's DefaultRetry: 10 ms steps with jitter (here up to 50 ms), so racing writers spread out.
      await new Promise((resolve) => setTimeout(resolve, Math.min(10 * attempt, 50) * (1 + Math.random())));
    }
  }
}
