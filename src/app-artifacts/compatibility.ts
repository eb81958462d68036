/**
 * Under `nodejs_compat`, environment values also appear in `process.env` (Next.js reads them there):
 * workerd implies `nodejs_compat_populate_process_env` only from the 2025-04-01 compatibility date, so
 * it is added explicitly, unless the build opted out with `nodejs_compat_do_not_populate_process_env`.
 */
export function effectiveFlags(flags: readonly string[]): string[] {
  const node = flags.includes('nodejs_compat') || flags.includes('nodejs_compat_v2');
  const decided = flags.includes('nodejs_compat_populate_process_env') || flags.includes('nodejs_compat_do_not_populate_process_env');
  return node && !decided ? [...flags, 'nodejs_compat_populate_process_env'] : [...flags];
}

/** The binding name of a deployment's static assets, as OpenNext and wrangler projects expect it. */
export const ASSETS_BINDING = 'ASSETS';
