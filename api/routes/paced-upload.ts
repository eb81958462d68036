import type { Readable } from 'node:stream';
import { PublicError } from '../../src/errors.ts';
import type { UploadLimits, UploadSlot } from './upload-slots.ts';

/** 408: the upload took too long, or arrived too slowly. The rest of it is not read: the connection closes. */
export class UploadTooSlowError extends PublicError {
  override readonly name = 'UploadTooSlowError';
  constructor(detail: string) {
    super(408, detail, { connection: 'close' });
  }
}

/**
 * The request body's chunks, as long as they arrive in time: at most `timeoutMs` from now, and, once
 * `graceMs` have passed, at `minBytesPerSecond` or more on average. Past either, or once `slot` is given up to
 * another upload, the iteration throws `UploadTooSlowError` at once (not when a next chunk comes), and the request
 * is left unread, not destroyed, so its answer can still be sent. What arrives is counted on `slot`.
 */
export async function* pacedUpload(
  body: Readable,
  limits: Pick<UploadLimits, 'timeoutMs' | 'minBytesPerSecond' | 'graceMs'>,
  slot?: Pick<UploadSlot, 'signal' | 'received'>,
  now: () => number = performance.now.bind(performance),
): AsyncGenerator<Uint8Array> {
  const iterator = body.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
  const started = now();
  let received = 0;
  try {
    for (;;) {
      const elapsed = now() - started;
      const tooLong = new UploadTooSlowError(`The upload took longer than ${limits.timeoutMs / 1000} s; send it faster, or a smaller artifact.`);
      if (elapsed >= limits.timeoutMs) throw tooLong;
      // When the average would drop under the minimum if nothing more arrived (at the earliest, after the grace).
      const behindAt = Math.max(limits.graceMs, ((received + 1) / limits.minBytesPerSecond) * 1000);
      const deadlineFirst = limits.timeoutMs <= behindAt;
      const wait = Math.max(1, Math.min(limits.timeoutMs, behindAt) - elapsed);
      const next = iterator.next();
      let timer: NodeJS.Timeout | undefined;
      let onYield: (() => void) | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), wait)));
      const yielded = new Promise<'yielded'>((resolve) => {
        onYield = () => resolve('yielded');
        if (slot?.signal.aborted) onYield();
        else slot?.signal.addEventListener('abort', onYield, { once: true });
      });
      const result = await Promise.race([next, late, yielded]).finally(() => {
        clearTimeout(timer);
        if (onYield) slot?.signal.removeEventListener('abort', onYield);
      });
      if (result === 'yielded') {
        next.catch(() => {});
        throw new UploadTooSlowError(String(slot?.signal.reason));
      }
      if (result === 'late') {
        next.catch(() => {}); // abandoned: the request is closed with the answer
        if (deadlineFirst) throw tooLong;
        throw new UploadTooSlowError(
          `The upload arrived at ${Math.round(received / ((now() - started) / 1000))} bytes/s on average, slower than the minimum of ${limits.minBytesPerSecond}; retry on a faster connection.`,
        );
      }
      if (result.done) return;
      const chunk = result.value as Uint8Array;
      received += chunk.length;
      if (slot) slot.received = received;
      yield chunk;
    }
  } finally {
    // Not awaited: with a read abandoned above, an async iterator's return waits for that read to settle.
    iterator.return?.().catch(() => {});
  }
}
