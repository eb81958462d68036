// The `cw-git` configuration: load it, and build what it describes.
export { ConfigError } from './config-error.ts';
export { MAX_DURATION_MS, parseDuration } from './duration.ts';
export type { ListenAddress } from './fields.ts';
export type { GitServiceConfig } from './git-service-config.ts';
export { ENV_PREFIX, loadConfig, parseConfig } from './load-config.ts';
export { createObjectStore } from './object-store.ts';
export { FIELDS, MIN_TOKEN_SECRET_BYTES, ROLES, type ConfigKey, type Role } from './schema.ts';
