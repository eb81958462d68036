import type { AssetServiceConfig } from '../../src/app-artifacts/build-config.ts';
import type { GenerationAssets } from './dispatcher/config.ts';
import type { RoutedApp } from './dispatcher/routing-table.ts';
import type { ShardTable } from './shard.ts';
import { shardOf } from './shard-of.ts';

/** One served app as the shards' tables need it. */
export interface TableApp {
  readonly project: string;
  /** What the dispatcher routes to (its assets binding is added here). */
  readonly routed: Omit<RoutedApp, 'assets'>;
  /** The build's static assets, when it has some. */
  readonly assets?: { readonly directory: string; readonly config: AssetServiceConfig };
}

/**
 * Each shard's routing table and the static assets its workerd needs, for the apps served (app key → app)
 * and the host assignment (host → app key). An app goes to the shard of its project, and so do its hosts;
 * assets bindings are numbered per shard (`A0`, `A1`, …) in key order, so equal input gives equal tables.
 * Pure.
 */
export function shardTables(apps: ReadonlyMap<string, TableApp>, assignment: ReadonlyMap<string, string>, shards: number, retryAfter: string): ShardTable[] {
  const tables = Array.from({ length: shards }, () => ({ hosts: {} as Record<string, string>, apps: {} as Record<string, RoutedApp>, assets: [] as GenerationAssets[] }));
  for (const [key, app] of [...apps].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const table = tables[shardOf(app.project, shards)]!;
    let binding: string | undefined;
    if (app.assets) {
      binding = `A${table.assets.length}`;
      table.assets.push({ binding, key, directory: app.assets.directory, config: app.assets.config });
    }
    table.apps[key] = { ...app.routed, ...(binding ? { assets: binding } : {}) };
  }
  for (const [host, key] of assignment) {
    const app = apps.get(key);
    if (app) tables[shardOf(app.project, shards)]!.hosts[host] = key;
  }
  return tables.map(({ hosts, apps: routed, assets }) => ({ routes: { hosts, apps: routed, retryAfter }, assets }));
}
