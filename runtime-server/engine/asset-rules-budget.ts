import type { PreparedBuild } from './build-store.ts';

/**
 * Bytes of a shard's static-asset rules (`_headers`, `_redirects`, `.assetsignore` as each app's assets service
 * config) the apps kept prepared in it may hold together, by default. Every workerd of the shard holds each app's
 * config, at about five times its size: one project's 100 apps at the per-app limits put some 190 MB into each,
 * past a shard's memory bound, so that every start ended at the bound, a crash loop of every co-tenant with no app
 * blamed (found in review). 4 MiB is some 20 MB a workerd, a thousand apps' ordinary rules.
 */
export const DEFAULT_ASSET_RULES_PER_SHARD = 4 * 1024 * 1024;

const sizes = new WeakMap<PreparedBuild, number>();

/** The bytes of `build`'s assets service config (its rules) a workerd holds; 0 for a build without static assets. */
export function assetRulesBytes(build: PreparedBuild | undefined): number {
  if (build?.assetsDir === undefined) return 0;
  let size = sizes.get(build);
  if (size === undefined) sizes.set(build, (size = JSON.stringify(build.assetConfig).length));
  return size;
}
