import { describe, expect, it } from 'vitest';
import { shardOf } from './shard-of.ts';
import { servedTables, shardTables, type TableApp } from './shard-tables.ts';
import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

const config = { html_handling: 'auto-trailing-slash', not_found_handling: 'none' } as unknown as NonNullable<TableApp['assets']>['config'];
function app(project: string, id: string, assets?: string): TableApp {
  return { project, routed: { id, build: `b-${id}`, limit: 10, depth: 10 }, ...(assets ? { assets: { directory: assets, config } } : {}) };
}

// Two projects on different shards of two.
const [a, b] = ['acme', 'bolt', 'cargo', 'delta', 'echo'].reduce<string[]>((found, p) => (found.length < 2 && !found.some((f) => shardOf(f, 2) === shardOf(p, 2)) ? [...found, p] : found), []) as [
  string,
  string,
];

describe('shardTables', () => {
  const apps = new Map<string, TableApp>([
    [`${a}/web`, app(a, 'w', '/builds/web')],
    [`${a}/api`, app(a, 'x')],
    [`${b}/shop`, app(b, 's', '/builds/shop')],
  ]);
  const assignment = new Map([
    [`web.${a}.apps.test`, `${a}/web`],
    ['www.example', `${a}/web`],
    [`api.${a}.apps.test`, `${a}/api`],
    [`shop.${b}.apps.test`, `${b}/shop`],
    ['gone.example', 'nobody/here'],
  ]);
  const hostsOf = (key: string) => [...assignment].filter(([, owner]) => owner === key).map(([host]) => host);
  const tables = shardTables(apps, hostsOf, 2, '7');

  it("puts each app, its hosts and its assets on its project's shard only", () => {
    const ofA = tables[shardOf(a, 2)]!;
    const ofB = tables[shardOf(b, 2)]!;
    expect(Object.keys(ofA.routes.apps).sort()).toEqual([`${a}/api`, `${a}/web`]);
    expect(ofA.routes.hosts).toEqual({ [`web.${a}.apps.test`]: `${a}/web`, 'www.example': `${a}/web`, [`api.${a}.apps.test`]: `${a}/api` });
    expect(Object.keys(ofB.routes.apps)).toEqual([`${b}/shop`]);
    expect(ofB.routes.hosts).toEqual({ [`shop.${b}.apps.test`]: `${b}/shop` });
    expect(ofA.routes.retryAfter).toBe('7');
  });

  it('numbers assets bindings per shard and names them in the routes', () => {
    const ofA = tables[shardOf(a, 2)]!;
    const ofB = tables[shardOf(b, 2)]!;
    expect(ofA.assets).toEqual([{ binding: 'A0', key: `${a}/web`, directory: '/builds/web', config }]);
    expect(ofB.assets).toEqual([{ binding: 'A0', key: `${b}/shop`, directory: '/builds/shop', config }]);
    expect(ofA.routes.apps[`${a}/web`]).toEqual({ id: 'w', build: 'b-w', limit: 10, depth: 10, assets: 'A0' });
    expect(ofA.routes.apps[`${a}/api`]).toEqual({ id: 'x', build: 'b-x', limit: 10, depth: 10 });
  });

  it('gives every shard a table, an empty one when it serves nothing', () => {
    expect(shardTables(new Map(), () => [], 3, '1')).toEqual(Array.from({ length: 3 }, () => ({ routes: { hosts: {}, apps: {}, retryAfter: '1' }, assets: [] })));
  });

  it('is the same for the same apps in another order (a push is skipped when nothing changed)', () => {
    const reversed = new Map([...apps].reverse());
    expect(JSON.stringify(shardTables(reversed, hostsOf, 2, '7'))).toBe(JSON.stringify(tables));
  });
});

describe('servedTables', () => {
  it("puts each served app in its project's shard with its routing entry", () => {
    const s: Served = { id: 'w-id', tailed: true, live: { app: { project: a, appId: 'web', buildId: 'b-1', env: {}, hostnames: [] }, build: { buildId: 'b-1' } as LiveApp['build'] } };
    const tables = servedTables(new Map([[`${a}/web`, s]]), (key) => (key === `${a}/web` ? [`web.${a}.apps.test`] : []), 2, { baseDomain: 'apps.test', defaultMaxConcurrentRequests: 5 }, '3');
    expect(tables[shardOf(a, 2)]?.routes.apps[`${a}/web`]).toEqual({ id: 'w-id', build: 'b-1', limit: 5, depth: 5, tailed: true });
    expect(tables[shardOf(a, 2)]?.routes.hosts).toEqual({ [`web.${a}.apps.test`]: `${a}/web` });
    expect(tables[1 - shardOf(a, 2)]?.routes.apps).toEqual({});
  });
});
