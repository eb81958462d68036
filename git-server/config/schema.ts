// Every key of the `cw-git` configuration file, with its kind and default (docs/repository-service.md,
// "Configuration", documents each one). Keys are snake_case as in the spec; nested sections join with dots.
import { DEFAULT_MAX_REFS } from '../../src/repo-store/refs.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { FieldError } from './config-error.ts';
import { checkUrlPattern, isUrlPattern } from '../import/source-url.ts';
import {
  bool,
  byteSize,
  checkAddressOrRange,
  count,
  checkBaseUrl,
  checkHttpUrl,
  checkOrigin,
  duration,
  fraction,
  hostPort,
  list,
  oneOf,
  requiredText,
  text,
  type Field,
  type FieldValue,
} from './fields.ts';

/** The roles an instance can take (`server.roles`); none listed means all of them. */
export const ROLES = ['serve', 'maintain', 'events'] as const;
export type Role = (typeof ROLES)[number];

/** `auth.token_secret` must be at least this many bytes (the HS256 key: RFC 7518 §3.2 wants ≥ 256 bits). */
export const MIN_TOKEN_SECRET_BYTES = 32;

// S3's bucket naming rules (3-63 characters; lowercase letters, digits, dots, hyphens; letter or digit at the ends).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// An HTTP header name (RFC 9110 token).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// A Kubernetes namespace (RFC 1123 label).
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function pattern(re: RegExp, what: string): (value: string) => string {
  return (value) => {
    if (!re.test(value)) throw new FieldError(`"${value}" is not ${what}`);
    return value;
  };
}

/** An `owner/name` repository path (the allow-lists of `api.*_sources`). */
function repoPath(value: string): string {
  try {
    return parseRepoPath(value).full;
  } catch {
    throw new FieldError(`"${value}" is not a repository path (owner/name)`);
  }
}

/** An `api.import_sources` entry: an `owner/name` of this bucket, or an `https://host[/path]` pattern. */
function importSource(value: string): string {
  if (!isUrlPattern(value)) return repoPath(value);
  try {
    return checkUrlPattern(value);
  } catch (error) {
    throw new FieldError((error as Error).message);
  }
}

function role(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new FieldError(`"${value}" is not a role (expected ${ROLES.join(', ')})`);
  return value as Role;
}

/** Every key, by dotted path. A key not listed here is refused, in the file and in the environment. */
export const FIELDS = {
  'store.bucket': requiredText({ check: pattern(BUCKET, 'an S3 bucket name') }),
  'store.s3.credentials': oneOf(['env', 'default'], 'env'),
  'store.s3.region': text('us-east-1'),
  'store.s3.endpoint': text(undefined, { check: checkBaseUrl }),
  'store.s3.force_path_style': bool(false),
  'server.listen': hostPort('127.0.0.1:8090'),
  'server.public_url': text(undefined, { check: checkBaseUrl }),
  'server.roles': list(role),
  'server.cors_origins': list(checkOrigin),
  'server.drain_timeout': duration('20s'),
  'server.max_fetches': count(16),
  'server.max_fetches_per_caller': count(8),
  'server.max_fetches_per_owner': count(12),
  'server.fetch_wait': duration('30s'),
  'auth.token_secret': requiredText({
    secret: true,
    check: (value) => {
      if (Buffer.byteLength(value) < MIN_TOKEN_SECRET_BYTES) throw new FieldError(`must be at least ${MIN_TOKEN_SECRET_BYTES} bytes long`);
      return value;
    },
  }),
  'auth.trusted_proxies': list(checkAddressOrRange),
  'auth.principal_header': text('x-forwarded-user', { check: (value) => pattern(HEADER_NAME, 'an HTTP header name')(value).toLowerCase() }),
  'api.initialize_sources': list(repoPath),
  'api.import_sources': list(importSource),
  'api.import_timeout': duration('5m'),
  'api.import_max_size': byteSize('1GiB'),
  'api.import_allow_private_targets': bool(false),
  'api.import_ca_file': text(undefined),
  'api.write_deadline': duration('5m'),
  'events.webhook_url': text(undefined, { check: checkHttpUrl }),
  'events.webhook_secret': text(undefined, { secret: true }),
  'events.sweep_interval': duration('5m'),
  'events.allow_private_targets': bool(false),
  'events.denied_target_ranges': list(checkAddressOrRange),
  'wal.freshness_ttl': duration('0s'),
  'cache.dir': text(undefined),
  'cache.disk_high_watermark': fraction(0.85),
  'cache.max_size': byteSize(undefined),
  'cache.evict_interval': duration('1m'),
  'cache.spool_max_size': byteSize('8GiB'),
  'cache.spool_max_size_per_owner': byteSize('5GiB'),
  'quota.repository_max_size': byteSize('10GiB'),
  'quota.repository_max_refs': count(DEFAULT_MAX_REFS),
  'quota.owner_max_size': byteSize('50GiB'),
  'quota.owner_max_repositories': count(100),
  'maintenance.interval': duration('1m'),
  'maintenance.log_retention': duration('7d'),
  'maintenance.grace_period': duration('1h'),
  'maintenance.unit_deadline': duration('30m'),
  'maintenance.owner_budget': duration('10m'),
  'kubernetes.namespace': text(undefined, { check: pattern(NAMESPACE, 'a Kubernetes namespace name') }),
  'kubernetes.webhook_namespace': text(undefined, { check: pattern(NAMESPACE, 'a Kubernetes namespace name') }),
  'kubernetes.project_tokens': bool(false),
} as const satisfies Record<string, Field<unknown>>;

export type ConfigKey = keyof typeof FIELDS;

/** The value of every key, after defaults, before the keys are shaped into {@link GitServiceConfig}. */
export type ConfigValues = { [K in ConfigKey]: FieldValue<(typeof FIELDS)[K]> };

/** Whether `path` is a key of the schema. */
export function isConfigKey(path: string): path is ConfigKey {
  return Object.hasOwn(FIELDS, path);
}

/** Whether `path` is a section (a mapping holding keys), such as `store` or `store.s3`. */
export function isSection(path: string): boolean {
  return Object.keys(FIELDS).some((key) => key.startsWith(`${path}.`));
}
