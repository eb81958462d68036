// An `Output` on a Node stream (stdout, stderr), waiting for 'drain' when the stream's buffer is full.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Output } from './command.ts';

export function streamOutput(stream: Writable): Output {
  return {
    async write(text) {
      if (!stream.write(text)) await once(stream, 'drain');
    },
  };
}
