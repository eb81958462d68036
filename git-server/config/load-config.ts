// Reading the `cw-git` configuration: a YAML (or JSON) file, then `SERVICE__…` environment overrides, each
// value checked against the schema, and the process's own variables (CW_LOG_LEVEL, KUBECONFIG, the AWS keys
// of `store.s3.credentials: env`) through the platform's environment readers (src/config/env.ts). The first
// problem stops the load with one line naming the key or the variable.
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { PINO_LEVELS } from '../../src/config/checks.ts';
import { EnvReader } from '../../src/config/env.ts';
import { ConfigError, FieldError } from './config-error.ts';
import type { GitServiceConfig } from './git-service-config.ts';
import { FIELDS, ROLES, isConfigKey, isSection, type ConfigKey, type ConfigValues } from './schema.ts';

/** Environment variables starting with this override a key: `SERVICE__EVENTS__WEBHOOK_SECRET` → `events.webhook_secret`. */
export const ENV_PREFIX = 'SERVICE__';

const MAX_FILE_BYTES = 1024 * 1024;

/** Where a value came from, for the error line. */
type Origin = { kind: 'file' } | { kind: 'env'; name: string };

interface Raw {
  value: unknown;
  origin: Origin;
}

/**
 * Loads the configuration file at `path` with overrides from `env`. Throws `ConfigError` (one line, naming
 * the file or variable and the key; never a secret's value) for a missing or unreadable file, invalid YAML,
 * an unknown key, a value of the wrong kind, or a missing required key. Relative paths in the file
 * (`cache.dir`) are taken from the file's directory.
 */
export function loadConfig(path: string, env: NodeJS.ProcessEnv): GitServiceConfig {
  const file = resolve(path);
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new ConfigError(`config ${file}: larger than 1 MiB; is this the right file?`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`config ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? String(err)})`}`);
  }
  return parseConfig(text, env, { source: file, baseDir: dirname(file) });
}

/** As `loadConfig`, from the file's text; `source` names it in errors, `baseDir` anchors relative paths. */
export function parseConfig(text: string, env: NodeJS.ProcessEnv, where: { source: string; baseDir: string }): GitServiceConfig {
  const raw = new Map<ConfigKey, Raw>();
  collect(parseYaml(text, where.source), '', where.source, raw);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined) continue;
    const key = name
      .slice(ENV_PREFIX.length)
      .split('__')
      .map((part) => part.toLowerCase())
      .join('.');
    if (!isConfigKey(key)) throw new ConfigError(`environment ${name}: ${key} is not a configuration key`);
    raw.set(key, { value, origin: { kind: 'env', name } });
  }
  const values = Object.fromEntries((Object.keys(FIELDS) as ConfigKey[]).map((key) => [key, readValue(key, raw.get(key), where.source)])) as ConfigValues;
  return shape(values, new EnvReader(env), where.baseDir);
}

function parseYaml(text: string, source: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    // The parser's message may quote the offending line, which can hold a secret: report only its position.
    const at = error.linePos?.[0];
    throw new ConfigError(`config ${source}: invalid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''} (${error.code})`);
  }
  return doc.toJS({ maxAliasCount: 100 }) ?? {};
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// Walks the parsed file along the schema: every leaf must be a key, every mapping a section.
function collect(node: unknown, prefix: string, source: string, out: Map<ConfigKey, Raw>): void {
  if (!isMapping(node)) throw new ConfigError(`config ${source}: ${prefix || 'the top level'} must be a mapping of keys`);
  for (const [name, value] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (isConfigKey(path)) {
      if (value !== null) out.set(path, { value, origin: { kind: 'file' } });
    } else if (isSection(path)) {
      if (value !== null) collect(value, path, source, out);
    } else {
      throw new ConfigError(`config ${source}: unknown key ${path}`);
    }
  }
}

function readValue(key: ConfigKey, raw: Raw | undefined, source: string): unknown {
  const field = FIELDS[key];
  try {
    if (raw === undefined) return field.absent();
    return raw.origin.kind === 'env' ? field.fromEnv(raw.value as string) : field.fromYaml(raw.value);
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    const where = raw?.origin.kind === 'env' ? `environment ${raw.origin.name}` : `config ${source}`;
    throw new ConfigError(`${where}: ${key} ${err.message}`);
  }
}

function shape(v: ConfigValues, env: EnvReader, baseDir: string): GitServiceConfig {
  // Only the Repository resources of cw-git's namespace tell its own repositories from a project's of the same name:
  // without them a project token would reach every repository of an owner named like its project.
  if (v['kubernetes.project_tokens'] && !v['kubernetes.namespace']) {
    throw new ConfigError(
      "kubernetes.project_tokens needs kubernetes.namespace: without cw-git's own Repository resources a project's git token would reach the service's repositories of an owner named like the project; set kubernetes.namespace",
    );
  }
  const listen = v['server.listen'];
  const kubeconfig = env.optional('KUBECONFIG');
  return {
    store: {
      bucket: v['store.bucket'],
      s3: {
        region: v['store.s3.region'],
        forcePathStyle: v['store.s3.force_path_style'],
        ...(v['store.s3.endpoint'] ? { endpoint: v['store.s3.endpoint'] } : {}),
        ...(v['store.s3.credentials'] === 'env' ? { credentials: keysFromEnv(env) } : {}),
      },
      credentialSource: v['store.s3.credentials'],
    },
    server: {
      listen,
      publicUrl: v['server.public_url'],
      roles: v['server.roles'].length === 0 ? [...ROLES] : ROLES.filter((role) => v['server.roles'].includes(role)),
      corsOrigins: v['server.cors_origins'],
      drainTimeoutMs: v['server.drain_timeout'],
      fetches: {
        total: v['server.max_fetches'],
        perCaller: v['server.max_fetches_per_caller'],
        perOwner: v['server.max_fetches_per_owner'],
        waitMs: v['server.fetch_wait'],
      },
    },
    auth: {
      tokenSecret: v['auth.token_secret'],
      trustedProxies: v['auth.trusted_proxies'],
      principalHeader: v['auth.principal_header'],
    },
    api: {
      initializeSources: v['api.initialize_sources'],
      importSources: v['api.import_sources'],
      importTimeoutMs: v['api.import_timeout'],
      importMaxBytes: v['api.import_max_size'],
      importAllowPrivateTargets: v['api.import_allow_private_targets'],
      ...(v['api.import_ca_file'] ? { importCaFile: resolve(baseDir, v['api.import_ca_file']) } : {}),
      writeDeadlineMs: v['api.write_deadline'],
    },
    events: {
      webhookUrl: v['events.webhook_url'],
      webhookSecret: v['events.webhook_secret'],
      sweepIntervalMs: v['events.sweep_interval'],
      allowPrivateTargets: v['events.allow_private_targets'],
      deniedTargetRanges: v['events.denied_target_ranges'],
    },
    wal: { freshnessTtlMs: v['wal.freshness_ttl'] },
    cache: {
      // The default is per bucket and port, so two instances on one machine never share a cache.
      dir: resolve(baseDir, v['cache.dir'] ?? join(tmpdir(), 'cw-git', v['store.bucket'], String(listen.port))),
      diskHighWatermark: v['cache.disk_high_watermark'],
      ...(v['cache.max_size'] !== undefined ? { maxBytes: v['cache.max_size'] } : {}),
      evictIntervalMs: v['cache.evict_interval'],
      spoolMaxBytes: v['cache.spool_max_size'],
      spoolMaxBytesPerOwner: v['cache.spool_max_size_per_owner'],
    },
    quota: {
      repositoryMaxBytes: v['quota.repository_max_size'],
      repositoryMaxRefs: v['quota.repository_max_refs'],
      ownerMaxBytes: v['quota.owner_max_size'],
      ownerMaxRepositories: v['quota.owner_max_repositories'],
    },
    maintenance: {
      intervalMs: v['maintenance.interval'],
      logRetentionMs: v['maintenance.log_retention'],
      gracePeriodMs: v['maintenance.grace_period'],
      unitDeadlineMs: v['maintenance.unit_deadline'],
      ownerBudgetMs: v['maintenance.owner_budget'],
    },
    kubernetes: { namespace: v['kubernetes.namespace'], webhookNamespace: v['kubernetes.webhook_namespace'] ?? v['kubernetes.namespace'], projectTokens: v['kubernetes.project_tokens'] },
    environment: { logLevel: env.oneOf('CW_LOG_LEVEL', PINO_LEVELS, 'info'), ...(kubeconfig ? { kubeconfig } : {}) },
  };
}

// `credentials: env` (the default): static keys read once, at startup, as the spec says.
function keysFromEnv(env: EnvReader): { accessKeyId: string; secretAccessKey: string } {
  const accessKeyId = env.optional('AWS_ACCESS_KEY_ID');
  const secretAccessKey = env.optional('AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      'store.s3.credentials is "env" (the default) but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set; set them, or set store.s3.credentials: default to use the SDK credential chain',
    );
  }
  return { accessKeyId, secretAccessKey };
}
