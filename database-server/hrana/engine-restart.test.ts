// A shard that dies or is starting again: a request it never received ran nothing and is refused in the statements'
// place, as any request not run; one it had may have committed, and is answered 503 DATABASE_RESTARTING, which the
// platform API reads as "may have been applied".
import { describe, expect, it } from 'vitest';
import { EngineUnavailableError, type DatabaseEngine } from '../shards/engine-port.ts';
import { handlePipeline } from './pipeline.ts';
import { StreamRegistry } from './stream-registry.ts';

function restartingEngine(sent: boolean): DatabaseEngine {
  return {
    run: () => Promise.reject(new EngineUnavailableError(sent ? 'restarted while running this request' : 'restarting', { sent })),
    closeStream: () => Promise.resolve(),
  } as unknown as DatabaseEngine;
}

const requests = [{ type: 'execute', stmt: { sql: "INSERT INTO t VALUES ('x')" } }, { type: 'close' }];

describe('a pipeline whose shard is restarting', () => {
  it('refuses a request never sent to the shard in a 200, every request answered DATABASE_RESTARTING', async () => {
    const streams = new StreamRegistry({ lockTimeoutMs: 1000 });
    const answer = await handlePipeline({ tenant: 'db', body: { baton: null, requests } }, { streams, engine: restartingEngine(false) });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ baton: null, results: requests.map(() => ({ type: 'error', error: { code: 'DATABASE_RESTARTING' } })) });
    expect(streams.lockFor('db').holder).toBeNull();
  });

  it('answers a request the shard had when it died 503 DATABASE_RESTARTING: it may have committed', async () => {
    const streams = new StreamRegistry({ lockTimeoutMs: 1000 });
    const answer = await handlePipeline({ tenant: 'db', body: { baton: null, requests } }, { streams, engine: restartingEngine(true) });
    expect(answer).toMatchObject({ status: 503, body: { code: 'DATABASE_RESTARTING' } });
    expect(streams.lockFor('db').holder).toBeNull();
  });
});
