import { PassThrough, type Readable } from 'node:stream';
import { Log } from '@kubernetes/client-node';
import type { KubeConnection } from './kube-config.ts';

/** A followed container log. */
export interface PodLogFollow {
  /**
   * Resolves when the log stops coming: the container exited, the connection ended or broke (client-node's
   * transport ends a response silent for 5 minutes), or `stop`. Follow again with `sinceTime` to go on.
   */
  readonly done: Promise<void>;
  stop(): void;
}

/**
 * Follows the log of `container` in pod `namespace/pod` (from its start, or from `sinceTime`, RFC 3339),
 * handing each chunk of text to `onText` as the kubelet sends it (`pods/log` with `follow=true`). The
 * container must have started: the apiserver answers 400 for one still waiting, which rejects here. Reading
 * needs `get` on `pods/log`.
 */
export async function followPodLog(
  conn: KubeConnection,
  target: { namespace: string; pod: string; container: string; sinceTime?: string | undefined },
  onText: (text: string) => void,
): Promise<PodLogFollow> {
  const sink = new PassThrough();
  sink.setEncoding('utf8');
  sink.on('data', (text: string) => onText(text));
  // client-node pipes the response into `sink`, which ends with it; a response that breaks does not end it,
  // so the response itself (the source of the pipe) ends it then, after what it had passed on. Its error is
  // heard here: client-node listens for none, and an unheard one would end the process.
  sink.on('pipe', (source: Readable) => {
    source.on('error', () => {});
    source.on('close', () => sink.end());
  });
  const done = new Promise<void>((resolve) => {
    sink.on('end', resolve);
    sink.on('close', resolve);
    sink.on('error', () => resolve());
  });
  const options = { follow: true, ...(target.sinceTime ? { sinceTime: target.sinceTime } : {}) };
  const controller = await new Log(conn.config).log(target.namespace, target.pod, target.container, sink, options);
  controller.signal.addEventListener('abort', () => sink.destroy(), { once: true });
  return { done, stop: () => controller.abort() };
}
