import type { HranaPipelineRequest, HranaPipelineResponse, HranaStreamResult } from './hrana-types.ts';
import type { SqlEngine } from './sql-engine.ts';
import { SqlError } from './sql-error.ts';
import type { Stream } from './stream.ts';
import { toHranaError } from './stream.ts';
import type { StreamRegistry } from './stream-registry.ts';

/** The HTTP answer to a pipeline request: JSON unless `body` is a string (sqld answers a bad baton in text). */
export interface PipelineAnswer {
  status: number;
  body: HranaPipelineResponse | { message: string; code: string } | string;
}

/**
 * Executes one Hrana v2 pipeline for `tenant`: continues the stream named by the baton (or opens a new one), runs
 * the requests in order (a failing request answers an error and does not stop the next ones), then parks the
 * stream under a new baton, or answers a null baton when a `close` ended it.
 */
export async function handlePipeline(request: { tenant: string; body: unknown }, streams: StreamRegistry, engine: SqlEngine): Promise<PipelineAnswer> {
  const body = request.body as Partial<HranaPipelineRequest> | null;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.requests)) {
    return { status: 400, body: { message: 'Expected {baton, requests: [...]}', code: 'HRANA_PROTO_ERROR' } };
  }
  if (body.baton != null && typeof body.baton !== 'string') {
    return { status: 400, body: 'Invalid baton' };
  }

  let stream: Stream;
  if (body.baton == null) {
    stream = streams.create(request.tenant, engine);
  } else {
    const taken = streams.take(body.baton, request.tenant);
    if ('missing' in taken) {
      return taken.missing === 'expired' ? { status: 400, body: { message: 'The stream has expired due to inactivity', code: 'STREAM_EXPIRED' } } : { status: 400, body: 'Invalid baton' };
    }
    stream = taken.stream;
  }

  try {
    await streams.lockFor(request.tenant).acquire(stream, streams.lockTimeoutMs, () => new SqlError('SQLITE_BUSY', 'The database is locked by another transaction'));
  } catch (error) {
    // The stream keeps its state (and, if it had one, its baton is spent): answer every request with the error
    // and end the stream, as a client cannot continue a stream whose baton it did not get back.
    stream.close();
    streams.releaseUnlessInTransaction(stream);
    const failed: HranaStreamResult = { type: 'error', error: toHranaError(error) };
    return { status: 200, body: { baton: null, base_url: null, results: body.requests.map(() => failed) } };
  }

  const results: HranaStreamResult[] = body.requests.map((streamRequest) => {
    try {
      return { type: 'ok', response: stream.run(streamRequest) };
    } catch (error) {
      return { type: 'error', error: toHranaError(error) };
    }
  });

  streams.releaseUnlessInTransaction(stream);
  const baton = stream.closed ? null : streams.park(stream);
  return { status: 200, body: { baton, base_url: null, results } };
}
