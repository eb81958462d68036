import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { gitAuth, mintToken } from '../auth/index.ts';
import { errorHandler } from '../errors.ts';
import type { WakeResult } from './bridge.ts';
import { eventsNotifyRoute, type EventsWaker } from './notify-route.ts';

const SECRET = 'notify-route-test-secret-0123456789abcdef';
const writer = mintToken({ sub: 'minio', scopes: ['read', 'write'] }, SECRET);
const reader = mintToken({ sub: 'viewer', scopes: ['read'] }, SECRET);
let app: FastifyInstance | undefined;
afterEach(async () => app?.close());

function report(repo: string, extra: Partial<NonNullable<WakeResult['report']>> = {}): WakeResult['report'] {
  return { repo, fromSeq: 3, headSeq: 5, cursorSeq: 5, emitted: 4, posts: 1, ...extra };
}

async function build(waker: EventsWaker | undefined) {
  app = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false } } });
  errorHandler(app);
  gitAuth(app, { tokenSecret: SECRET });
  eventsNotifyRoute(app, waker);
  await app.ready();
  return (body: unknown, token = writer) => app!.inject({ method: 'POST', url: '/_events/notify', headers: { authorization: `Bearer ${token}` }, payload: body as object });
}

describe('POST /_events/notify', () => {
  it('wakes each repository a body names and answers what was delivered', async () => {
    const woken: string[] = [];
    const notify = await build({ draining: false, wake: async (repo) => (woken.push(repo), { repo, outcome: 'delivered', report: report(repo) }) });
    const res = await notify({ Records: [{ s3: { object: { key: 'repos%2Facme%2Fsite%2Fmanifest.json' } } }, { s3: { object: { key: 'repos/acme/api/manifest.json' } } }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { repo: 'acme/site', from_seq: 3, head_seq: 5, emitted: 4 },
      { repo: 'acme/api', from_seq: 3, head_seq: 5, emitted: 4 },
    ]);
    expect(woken).toEqual(['acme/site', 'acme/api']);
    expect((await notify({ key: 'repos/acme/site/log/1.json' })).json()).toEqual([]);
    const gap = await build({ draining: false, wake: async (repo) => ({ repo, outcome: 'delivered', report: report(repo, { gap: { fromSeq: 1, toSeq: 2 } }) }) });
    expect((await gap({ repo: 'acme/site' })).json()).toEqual([{ repo: 'acme/site', from_seq: 3, head_seq: 5, emitted: 4, gap: { from_seq: 1, to_seq: 2 } }]);
  });

  it('wakes the per-repository webhooks of each repository too, without waiting for them or answering for them', async () => {
    const webhooks: string[] = [];
    const both = await build({ draining: false, wake: async (repo) => ({ repo, outcome: 'delivered', report: report(repo) }), wakeWebhooks: (repo) => void webhooks.push(repo) });
    expect((await both({ repo: 'acme/site' })).json()).toEqual([{ repo: 'acme/site', from_seq: 3, head_seq: 5, emitted: 4 }]);
    const only = await build({ draining: false, wakeWebhooks: (repo) => void webhooks.push(repo) });
    const res = await only({ key: 'repos/acme/api/manifest.json' });
    expect([res.statusCode, res.json()]).toEqual([200, []]);
    expect(webhooks).toEqual(['acme/site', 'acme/api']);
  });

  it('wakes the push mark of each repository a notification names, in the background, on an instance with nothing else', async () => {
    const marked: string[] = [];
    const notify = await build({ draining: false, wakeMarks: (repo) => void marked.push(repo) });
    const res = await notify({ Records: [{ s3: { object: { key: 'repos%2Facme%2Fsite%2Fmanifest.json' } } }, { s3: { object: { key: 'repos/acme/site/manifest.json' } } }] });
    expect([res.statusCode, res.json()]).toEqual([200, []]);
    expect(marked).toEqual(['acme/site']);
    expect((await notify({ key: 'repos/acme/site/packs/p.pack' })).statusCode).toBe(200);
    expect(marked).toEqual(['acme/site']);
  });

  it('answers 503 with Retry-After when a delivery failed, leaving out repositories that are gone', async () => {
    const notify = await build({
      draining: false,
      wake: async (repo): Promise<WakeResult> =>
        repo === 'acme/gone' ? { repo, outcome: 'gone' } : { repo, outcome: 'failed', reason: 'the webhook answered 500', retryInMs: 2500, report: report(repo, { emitted: 0, posts: 0 }) },
    });
    const res = await notify({ Records: [{ s3: { object: { key: 'repos/acme/site/manifest.json' } } }, { s3: { object: { key: 'repos/acme/gone/manifest.json' } } }] });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.json()).toEqual({
      error: 'delivery_failed',
      message: 'Events of acme/site were not delivered: the webhook answered 500.',
      retryable: true,
      results: [{ repo: 'acme/site', from_seq: 3, head_seq: 5, emitted: 0 }],
      failed: [{ repo: 'acme/site', reason: 'the webhook answered 500', retry_in_ms: 2500 }],
    });
  });

  it('needs the write scope, a known body, and an instance that delivers events', async () => {
    const notify = await build({ draining: false, wake: async (repo) => ({ repo, outcome: 'delivered', report: report(repo) }) });
    expect((await notify({ repo: 'acme/site' }, reader)).statusCode).toBe(403);
    expect((await app!.inject({ method: 'POST', url: '/_events/notify', payload: { repo: 'acme/site' } })).statusCode).toBe(401);
    const bad = await notify({ repo: 'not a repo' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_request' });
    expect((await notify({ something: 'else' })).statusCode).toBe(400);
    const off = await build(undefined);
    expect((await off({ repo: 'acme/site' })).json()).toMatchObject({ error: 'events_not_enabled' });
    const draining = await build({ draining: true, wake: async () => ({ repo: 'x/y', outcome: 'abandoned' }) });
    const res = await draining({ repo: 'acme/site' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'draining', retryable: true });
  });
});
