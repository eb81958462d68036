// The `/api/hooks` routes through the whole cw-git app (memory bucket), with a stand-in for the events role's
// webhooks: scopes, 404s, and the shape of the answers. The real thing is in e2e/repository-webhooks.test.ts.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RepoCache } from '../plumbing/repo-cache.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { DeliveryRecord } from '../events/delivery-log.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from '../repositories/bucket-repository-directory.ts';
import { buildGitServer } from '../app.ts';
import { mintToken } from '../auth/index.ts';
import { DrainState } from '../drain.ts';
import { ServiceMetrics } from '../metrics.ts';
import type { RepoWebhooksApi } from './hooks.ts';

const SECRET = 'hooks-test-secret-of-at-least-32-bytes!';
const write = { authorization: `Bearer ${mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET)}` };
const read = { authorization: `Bearer ${mintToken({ sub: 'rex', scopes: ['read'] }, SECRET)}` };
const record: DeliveryRecord = {
  id: 2,
  delivery_id: 'a'.repeat(40),
  at: '2030-01-02T03:04:05.000Z',
  repo: 'acme/site',
  from_seq: 3,
  to_seq: 4,
  events: 2,
  attempt: 1,
  redelivery: false,
  scheme: 'standard-webhooks',
  outcome: 'rejected',
  status_code: 500,
  error: 'the webhook answered 500',
  duration_ms: 7,
};
const fake: RepoWebhooksApi = {
  list: async (repo) =>
    repo === 'acme/site'
      ? [
          {
            name: 'deploy',
            url: 'https://hooks.example.com:8443/t/TOKEN',
            signature: 'standard-webhooks',
            active: true,
            events: { actions: ['create'] },
            ready: { status: false, reason: 'SecretNotFound', message: 'Secret s is not found.' },
            consecutiveFailures: 1,
            lastDelivery: record,
          },
        ]
      : [],
  deliveries: async (repo, name) => (repo === 'acme/site' && name === 'deploy' ? [record] : undefined),
  redeliver: async (_repo, _name, id) => ({ ...record, id: id + 10, attempt: 2, redelivery: true, outcome: 'delivered', status_code: 204 }),
};

let app: FastifyInstance | undefined;
afterEach(async () => app?.close());

async function build(webhooks: RepoWebhooksApi | undefined) {
  const objects = new MemoryObjectStore();
  const repos = new RepoStore({ store: objects, registry: new Registry() });
  const cache = new RepoCache({ repos, dir: await mkdtemp(join(tmpdir(), 'hooks-test-')) });
  app = await buildGitServer({
    repos,
    objects,
    cache,
    directory: new BucketRepositoryDirectory(repos),
    auth: { tokenSecret: SECRET },
    metrics: new ServiceMetrics(new Registry()),
    drain: new DrainState(),
    ...(webhooks ? { webhooks } : {}),
  });
  expect((await app.inject({ method: 'PUT', url: '/acme/site', headers: write })).statusCode).toBe(201);
  return app;
}

describe('/api/hooks', () => {
  it('lists the webhooks with the read scope, showing the URL origin only', async () => {
    const server = await build(fake);
    const res = await server.inject({ url: '/acme/site/api/hooks', headers: read });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        name: 'deploy',
        url_origin: 'https://hooks.example.com:8443',
        signature: 'standard-webhooks',
        active: true,
        events: { actions: ['create'] },
        ready: { status: false, reason: 'SecretNotFound', message: 'Secret s is not found.' },
        consecutive_failures: 1,
        last_delivery: record,
      },
    ]);
    expect(res.body).not.toContain('TOKEN');
    expect((await server.inject({ url: '/acme/site/api/hooks/deploy/deliveries', headers: read })).json()).toEqual([record]);
    expect((await server.inject({ url: '/acme/site/api/hooks/deploy/deliveries/2', headers: read })).json()).toEqual(record);
  });

  it('redelivers with the write scope only, answering the new record', async () => {
    const server = await build(fake);
    expect((await server.inject({ method: 'POST', url: '/acme/site/api/hooks/deploy/deliveries/2/redeliver', headers: read })).statusCode).toBe(403);
    const res = await server.inject({ method: 'POST', url: '/acme/site/api/hooks/deploy/deliveries/2/redeliver', headers: write });
    expect([res.statusCode, res.json()]).toEqual([201, { ...record, id: 12, attempt: 2, redelivery: true, outcome: 'delivered', status_code: 204 }]);
  });

  it('answers 404 for an unknown webhook, delivery or repository, and without webhooks on the instance', async () => {
    const server = await build(fake);
    const code = async (url: string) => (await server.inject({ url, headers: read })).json<{ error: string }>().error;
    expect(await code('/acme/site/api/hooks/nope/deliveries')).toBe('webhook_not_found');
    expect(await code('/acme/site/api/hooks/deploy/deliveries/3')).toBe('delivery_not_found');
    expect(await code('/acme/other/api/hooks')).toBe('repository_not_found');
    expect((await server.inject({ url: '/acme/site/api/hooks/deploy/deliveries/x', headers: read })).statusCode).toBe(400);
    await server.close();
    const without = await build(undefined);
    const res = await without.inject({ url: '/acme/site/api/hooks', headers: read });
    expect([res.statusCode, res.json<{ error: string }>().error]).toEqual([404, 'webhooks_not_enabled']);
  });
});
