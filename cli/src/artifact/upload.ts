// The deploy upload: the artifact as a request body stream, counted as the connection takes it, so the
// progress bar shows bytes sent and the rate (cli-progress, on a terminal only).
import { SingleBar } from 'cli-progress';
import { formatBytes } from '../output.ts';

const CHUNK = 64 * 1024;

export interface UploadProgress {
  body: ReadableStream<Uint8Array>;
  /** Stops the bar (leaving its last state on screen). */
  stop(): void;
}

export function uploadStream(bytes: Buffer, showBar: boolean): UploadProgress {
  const started = performance.now();
  const bar = showBar
    ? new SingleBar({
        stream: process.stderr,
        format: 'Uploading [{bar}] {percentage}% | {sent} of {size} | {rate}',
        barCompleteChar: '█',
        barIncompleteChar: '░',
        hideCursor: true,
        clearOnComplete: false,
        fps: 15,
      })
    : undefined;
  const payload = (sent: number): Record<string, string> => {
    const seconds = (performance.now() - started) / 1000;
    return { sent: formatBytes(sent), size: formatBytes(bytes.length), rate: seconds > 0 ? `${formatBytes(Math.round(sent / seconds))}/s` : '-' };
  };
  bar?.start(bytes.length, 0, payload(0));
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(offset, offset + CHUNK);
      offset += chunk.length;
      controller.enqueue(new Uint8Array(chunk));
      bar?.update(offset, payload(offset));
    },
  });
  return { body, stop: () => bar?.stop() };
}
