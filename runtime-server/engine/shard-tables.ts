import type { AssetServiceConfig } from '../../src/app-artifacts/build-config.ts';
import { CANARY_SUFFIX, type GenerationAssets } from './dispatcher/config.ts';
import type { RoutedApp } from './dispatcher/routing-table.ts';
import type { ShardTable } from './shard.ts';
import { shardOf } from './shard-of.ts';
import { routedApp, type Served, type ServingOptions } from './served.ts';

/** One served app as the shards' tables need it. */
export interface TableApp {
  readonly project: string;
  /** What the dispatcher routes to (its assets binding is added here). */
  readonly routed: Omit<RoutedApp, 'assets'>;
  /** The build's static assets, when it has some. */
  readonly assets?: TableAssets;
  /** During a rollout, the new release's static assets, when it has some. */
  readonly canaryAssets?: TableAssets;
}

type TableAssets = { readonly directory: string; readonly config: AssetServiceConfig };

/**
 * Each shard's routing table and the static assets its workerd needs, for the apps served (app key → app) and the
 * hosts routed to each (`hostsOf`). An app goes to the shard of its project, and so do its hosts; assets bindings
 * are numbered per shard (`A0`, `A1`, …) in key order, and hosts sorted, so equal input gives equal tables. Pure.
 */
export function shardTables(apps: ReadonlyMap<string, TableApp>, hostsOf: (key: string) => Iterable<string>, shards: number, retryAfter: string): ShardTable[] {
  const tables = Array.from({ length: shards }, () => ({ hosts: {} as Record<string, string>, apps: {} as Record<string, RoutedApp>, assets: [] as GenerationAssets[] }));
  for (const [key, app] of [...apps].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const table = tables[shardOf(app.project, shards)]!;
    let binding: string | undefined;
    if (app.assets) {
      binding = `A${table.assets.length}`;
      table.assets.push({ binding, key, directory: app.assets.directory, config: app.assets.config });
    }
    let canaryBinding: string | undefined;
    if (app.canaryAssets && app.routed.split) {
      canaryBinding = `A${table.assets.length}`;
      table.assets.push({ binding: canaryBinding, key: `${key}${CANARY_SUFFIX}`, canary: true, directory: app.canaryAssets.directory, config: app.canaryAssets.config });
    }
    const split = app.routed.split && canaryBinding ? { ...app.routed.split, assets: canaryBinding } : app.routed.split;
    table.apps[key] = { ...app.routed, ...(binding ? { assets: binding } : {}), ...(split ? { split } : {}) };
    for (const host of [...hostsOf(key)].sort()) table.hosts[host] = key;
  }
  return tables.map(({ hosts, apps: routed, assets }) => ({ routes: { hosts, apps: routed, retryAfter }, assets }));
}

/** {@link shardTables} for what the engine serves: each app's routing entry and its build's static assets. */
export function servedTables(served: ReadonlyMap<string, Served>, hostsOf: (key: string) => Iterable<string>, shards: number, serving: ServingOptions, retryAfter: string): ShardTable[] {
  const apps = new Map<string, TableApp>();
  for (const [key, s] of served) {
    const { assetsDir, assetConfig } = s.live.build;
    const canary = s.canary?.live.build;
    apps.set(key, {
      project: s.live.app.project,
      routed: routedApp(s, serving),
      ...(assetsDir !== undefined ? { assets: { directory: assetsDir, config: assetConfig } } : {}),
      ...(canary?.assetsDir !== undefined ? { canaryAssets: { directory: canary.assetsDir, config: canary.assetConfig } } : {}),
    });
  }
  return shardTables(apps, hostsOf, shards, retryAfter);
}
