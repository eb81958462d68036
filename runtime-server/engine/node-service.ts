import { createServer, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import type { AppLogs } from '../../src/runtime-contract/app-logs.ts';
import { ingestLogBatch } from './log-sink.ts';
import { workerCodeText, type WorkerCodeJson } from './worker-code.ts';
import { GENERATION_HEADER } from './dispatcher/config.ts';
import { refuse, type Refusal } from './entry-proxy.ts';

/** Code the runtime will not hand out now: the dispatcher answers the request that asked for it with this. */
export interface CodeRefusal {
  readonly refusal: Refusal;
}

const MAX_LOG_BATCH_BYTES = 16 * 1024 * 1024;

export interface NodeServiceHandlers {
  /**
   * The code and environment of a loader id, undefined when the runtime does not know it, or a refusal to pass on;
   * `generation`: the workerd asking (`GENERATION_HEADER`), whose thread loads the isolate next.
   */
  code(id: string, generation: number | undefined): Promise<WorkerCodeJson | CodeRefusal | undefined>;
  readonly logs: AppLogs;
}

/**
 * What workerd asks of the runtime process, on a Unix socket in its private run directory (so only workerd
 * reaches it), with Node's own HTTP server: `GET /code/{id}` (an app's isolate being loaded; a 503 problem to pass on when it may not be now) and
 * `POST /logs` (the tail worker's batches). Nothing here is on a request's path: code is fetched once per
 * isolate, logs after the response.
 */
export async function startNodeService(socketPath: string, handlers: NodeServiceHandlers): Promise<Server> {
  await rm(socketPath, { force: true });
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url.startsWith('/code/')) {
      const generation = Number(req.headers[GENERATION_HEADER]);
      handlers.code(decodeURIComponent(url.slice('/code/'.length)), Number.isSafeInteger(generation) ? generation : undefined).then(
        (code) => {
          if (code && 'refusal' in code) refuse(res, code.refusal);
          else if (code) res.writeHead(200, { 'content-type': 'application/json' }).end(workerCodeText(code));
          else res.writeHead(404).end('unknown worker id');
        },
        (err: unknown) => res.writeHead(500).end(err instanceof Error ? err.message : String(err)),
      );
      return;
    }
    if (req.method === 'POST' && url === '/logs') {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_LOG_BATCH_BYTES) req.destroy();
        else chunks.push(chunk);
      });
      req.on('end', () => {
        res.writeHead(204).end();
        ingestLogBatch(Buffer.concat(chunks).toString('utf8'), handlers.logs);
      });
      return;
    }
    res.writeHead(404).end();
  });
  // workerd pools its connections to this service: Node must not close an idle one under it.
  server.keepAliveTimeout = 0;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}
