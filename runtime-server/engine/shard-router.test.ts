import { describe, expect, it } from 'vitest';
import { shardOf } from './shard-of.ts';
import { ShardRouter } from './shard-router.ts';

describe('ShardRouter', () => {
  const routes = new Map([
    ['web.acme.apps.test', 'acme/web'],
    ['api.acme.apps.test', 'acme/api'],
    ['shop.example', 'acme/web'],
    ['blog.zeta.apps.test', 'zeta/blog'],
  ]);
  const router = new ShardRouter(4, (host) => routes.get(host));

  it('routes a host to its app and to the shard of its project', () => {
    expect(router.route('web.acme.apps.test')).toEqual({ key: 'acme/web', shard: shardOf('acme', 4) });
    expect(router.route('blog.zeta.apps.test')).toEqual({ key: 'zeta/blog', shard: shardOf('zeta', 4) });
  });

  it('keeps every app of a project, and each of its host names, on one shard', () => {
    const shards = ['web.acme.apps.test', 'api.acme.apps.test', 'shop.example'].map((host) => (router.route(host) as { shard: number }).shard);
    expect(new Set(shards).size).toBe(1);
  });

  it('matches hosts as the dispatcher does: any case, any port, a trailing dot', () => {
    expect(router.route('WEB.Acme.apps.test.:8443')).toEqual({ key: 'acme/web', shard: shardOf('acme', 4) });
  });

  it('answers an unknown host, and a request naming none, with a 404 problem', () => {
    expect(router.route('nope.apps.test')).toEqual({ status: 404, title: 'Not Found', detail: 'No app is served at host "nope.apps.test".' });
    expect(router.route(undefined)).toEqual({ status: 404, title: 'Not Found', detail: 'The request names no host.' });
    expect(router.route('[::1]:80')).toMatchObject({ status: 404, detail: 'The request names no host.' });
  });

  it('follows the assignment it reads: a host no longer routed is a 404', () => {
    const live = new Map([['a.p.apps.test', 'p/a']]);
    const r = new ShardRouter(2, (host) => live.get(host));
    expect(r.route('a.p.apps.test')).toMatchObject({ key: 'p/a' });
    live.clear();
    expect(r.route('a.p.apps.test')).toMatchObject({ status: 404 });
  });
});
