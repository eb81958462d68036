import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { loadConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-git-config-'));
const SECRET = 'a-token-secret-of-at-least-32-bytes!!';
const KEYS = { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'aws-secret-value' };
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(text: string, name = `c${++files}.yaml`): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const minimal = `store: { bucket: repos }\nauth: { token_secret: ${SECRET} }\n`;

/** The ConfigError message of loading `text`, asserting it is one line that never quotes a secret. */
function failure(text: string, env: NodeJS.ProcessEnv = KEYS): string {
  try {
    loadConfig(file(text), env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    for (const secret of [SECRET, 'short-secret', 'aws-secret-value', 'hook-secret']) expect(message).not.toContain(secret);
    return message;
  }
  throw new Error('expected the load to fail');
}

describe('loadConfig', () => {
  it('reads the documented example file into typed, camelCased values with durations in ms', () => {
    const path = join(import.meta.dirname, '../../docs/examples/cw-git/cw-git.yaml');
    expect(loadConfig(path, KEYS)).toEqual({
      store: {
        bucket: 'cw-git',
        s3: {
          region: 'us-east-1',
          endpoint: 'http://127.0.0.1:9000',
          forcePathStyle: true,
          credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'aws-secret-value' },
        },
        credentialSource: 'env',
      },
      server: {
        listen: { host: '127.0.0.1', port: 8090 },
        publicUrl: 'http://127.0.0.1:8090',
        roles: ['serve', 'maintain', 'events'],
        corsOrigins: ['https://console.example.com'],
        drainTimeoutMs: 20_000,
        fetches: { total: 16, perCaller: 8, perOwner: 12, waitMs: 30_000 },
      },
      auth: {
        tokenSecret: 'change-me-to-32-or-more-random-bytes-please',
        trustedProxies: ['10.0.0.0/8', '127.0.0.1'],
        principalHeader: 'x-forwarded-user',
      },
      api: {
        initializeSources: ['templates/next-app'],
        importSources: ['https://github.com/acme/*'],
        importTimeoutMs: 300_000,
        importMaxBytes: 1024 ** 3,
        importAllowPrivateTargets: false,
        writeDeadlineMs: 300_000,
      },
      events: { webhookUrl: 'https://hooks.example.com/cw-git', webhookSecret: 'change-me-too', sweepIntervalMs: 300_000, allowPrivateTargets: false, deniedTargetRanges: ['169.254.169.254/32'] },
      wal: { freshnessTtlMs: 0 },
      cache: { dir: '/var/cache/cw-git', diskHighWatermark: 0.85, maxBytes: 20 * 1024 ** 3, evictIntervalMs: 60_000, spoolMaxBytes: 8 * 1024 ** 3, spoolMaxBytesPerOwner: 5 * 1024 ** 3 },
      quota: { repositoryMaxBytes: 10 * 1024 ** 3, repositoryMaxRefs: 10_000, ownerMaxBytes: 50 * 1024 ** 3, ownerMaxRepositories: 100 },
      maintenance: { intervalMs: 60_000, logRetentionMs: 7 * 24 * 60 * 60 * 1000, gracePeriodMs: 60 * 60 * 1000, unitDeadlineMs: 30 * 60 * 1000, ownerBudgetMs: 10 * 60 * 1000 },
      kubernetes: { namespace: 'cloudwright-system', webhookNamespace: 'cloudwright-system-webhooks', projectTokens: true },
      environment: { logLevel: 'info' },
    });
  });

  it('applies the defaults to a minimal file', () => {
    const config = loadConfig(file(minimal), KEYS);
    expect(config.store.s3).toEqual({ region: 'us-east-1', forcePathStyle: false, credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'aws-secret-value' } });
    expect(config.server).toEqual({
      listen: { host: '127.0.0.1', port: 8090 },
      publicUrl: undefined,
      roles: ['serve', 'maintain', 'events'],
      corsOrigins: [],
      drainTimeoutMs: 20_000,
      fetches: { total: 16, perCaller: 8, perOwner: 12, waitMs: 30_000 },
    });
    expect(config.auth).toEqual({ tokenSecret: SECRET, trustedProxies: [], principalHeader: 'x-forwarded-user' });
    expect(config.api).toEqual({ initializeSources: [], importSources: [], importTimeoutMs: 300_000, importMaxBytes: 1024 ** 3, importAllowPrivateTargets: false, writeDeadlineMs: 300_000 });
    expect(config.events).toEqual({ webhookUrl: undefined, webhookSecret: undefined, sweepIntervalMs: 300_000, allowPrivateTargets: false, deniedTargetRanges: [] });
    expect(config.wal.freshnessTtlMs).toBe(0);
    expect(config.cache).toEqual({
      dir: join(tmpdir(), 'cw-git', 'repos', '8090'),
      diskHighWatermark: 0.85,
      evictIntervalMs: 60_000,
      spoolMaxBytes: 8 * 1024 ** 3,
      spoolMaxBytesPerOwner: 5 * 1024 ** 3,
    });
    expect(config.kubernetes).toEqual({ namespace: undefined, webhookNamespace: undefined, projectTokens: false });
  });

  it('reads JSON, resolves a relative cache.dir against the file, and keeps roles in a stable order', () => {
    const json = JSON.stringify({
      store: { bucket: 'repos', s3: { credentials: 'default', endpoint: '' } },
      auth: { token_secret: SECRET },
      server: { roles: ['events', 'serve', 'events'], listen: '[::]:0' },
      cache: { dir: 'cache' },
    });
    const config = loadConfig(file(json, 'c.json'), {});
    expect(config.store.s3).toEqual({ region: 'us-east-1', forcePathStyle: false });
    expect(config.store.credentialSource).toBe('default');
    expect(config.server.roles).toEqual(['serve', 'events']);
    expect(config.server.listen).toEqual({ host: '::', port: 0 });
    expect(config.cache.dir).toBe(join(dir, 'cache'));
  });

  it('treats an empty key or section as absent', () => {
    const config = loadConfig(file(`${minimal}events:\nserver:\n  public_url:\n`), KEYS);
    expect(config.events.sweepIntervalMs).toBe(300_000);
    expect(config.server.publicUrl).toBeUndefined();
  });

  it('lets SERVICE__ variables override every kind of key, typed by the schema', () => {
    const config = loadConfig(file(`${minimal}server: { roles: [serve], public_url: https://git.example.com/ }\n`), {
      ...KEYS,
      SERVICE__EVENTS__WEBHOOK_SECRET: 'hook-secret',
      SERVICE__STORE__S3__ENDPOINT: 'http://minio:9000',
      SERVICE__STORE__S3__FORCE_PATH_STYLE: 'true',
      SERVICE__SERVER__ROLES: 'maintain, events',
      SERVICE__SERVER__DRAIN_TIMEOUT: '1m30s',
      SERVICE__CACHE__DISK_HIGH_WATERMARK: '0.5',
      SERVICE__CACHE__MAX_SIZE: '512Mi',
      SERVICE__AUTH__TRUSTED_PROXIES: '10.1.2.3,fd00::/8',
      SERVICE__AUTH__PRINCIPAL_HEADER: 'X-Remote-User',
      SERVICE__AUTH__TOKEN_SECRET: `${SECRET}-from-env`,
      SERVICE__EVENTS__ALLOW_PRIVATE_TARGETS: 'true',
      SERVICE__EVENTS__DENIED_TARGET_RANGES: '10.9.0.0/16, 192.0.2.7',
      OTHER__STORE__BUCKET: 'ignored',
    });
    expect(config.events.webhookSecret).toBe('hook-secret');
    expect(config.store.s3.endpoint).toBe('http://minio:9000');
    expect(config.store.s3.forcePathStyle).toBe(true);
    expect(config.server.roles).toEqual(['maintain', 'events']);
    expect(config.server.publicUrl).toBe('https://git.example.com');
    expect(config.server.drainTimeoutMs).toBe(90_000);
    expect(config.cache.diskHighWatermark).toBe(0.5);
    expect(config.cache.maxBytes).toBe(512 * 1024 ** 2); // a Kubernetes quantity, as the chart's cacheSize
    expect(loadConfig(file(minimal), { ...KEYS, SERVICE__CACHE__MAX_SIZE: '20G' }).cache.maxBytes).toBe(20e9);
    expect(config.auth.trustedProxies).toEqual(['10.1.2.3', 'fd00::/8']);
    expect(config.auth.principalHeader).toBe('x-remote-user');
    expect(config.auth.tokenSecret).toBe(`${SECRET}-from-env`);
    expect(config.events.allowPrivateTargets).toBe(true);
    expect(config.events.deniedTargetRanges).toEqual(['10.9.0.0/16', '192.0.2.7']);
  });

  it('lets an empty override clear a value from the file', () => {
    const text = `${minimal}store: { bucket: repos, s3: { endpoint: "http://minio:9000" } }\nserver: { roles: [serve] }\n`.replace(/^store: \{ bucket: repos \}\n/, '');
    const config = loadConfig(file(text), { ...KEYS, SERVICE__STORE__S3__ENDPOINT: '', SERVICE__SERVER__ROLES: '' });
    expect(config.store.s3.endpoint).toBeUndefined();
    expect(config.server.roles).toEqual(['serve', 'maintain', 'events']);
  });

  it.each([
    ['a missing file', null, /config .*nope\.yaml: no such file$/],
    ['an unknown top-level key', `${minimal}stroe: {}\n`, /: unknown key stroe$/],
    ['an unknown nested key', `${minimal}events: { webhook_secert: hook-secret }\n`, /: unknown key events\.webhook_secert$/],
    ['a key where a section belongs', 'store: repos\n', /: store must be a mapping of keys$/],
    ['a missing required key', 'store: { bucket: repos }\n', /: auth\.token_secret is required but not set$/],
    ['a short secret', 'store: { bucket: repos }\nauth: { token_secret: short-secret }\n', /: auth\.token_secret must be at least 32 bytes long$/],
    ['a number for a string', `auth: { token_secret: ${SECRET} }\nstore: { bucket: 123 }\n`, /: store\.bucket expected a string, got number$/],
    ['a bad bucket name', `auth: { token_secret: ${SECRET} }\nstore: { bucket: My_Bucket }\n`, /: store\.bucket "My_Bucket" is not an S3 bucket name$/],
    ['a string for a boolean', `${minimal.replace('{ bucket: repos }', '{ bucket: repos, s3: { force_path_style: "yes" } }')}`, /store\.s3\.force_path_style expected true or false, got string$/],
    ['a bad duration', `${minimal}server: { drain_timeout: 20 }\n`, /server\.drain_timeout expected a duration such as "20s", got number$/],
    ['a bad duration string', `${minimal}events: { sweep_interval: 5 minutes }\n`, /events\.sweep_interval "5 minutes" is not a duration/],
    ['a fraction above 1', `${minimal}cache: { disk_high_watermark: 85 }\n`, /cache\.disk_high_watermark expected a fraction from 0 to 1 \(such as 0\.85\), got 85$/],
    ['a bad URL', `${minimal}events: { webhook_url: "hooks.example.com/x" }\n`, /events\.webhook_url is not a URL/],
    ['a URL with credentials', `${minimal}events: { webhook_url: "https://u:hook-secret@hooks.example.com" }\n`, /events\.webhook_url must not contain credentials/],
    [
      'a non-repository initialize source',
      `${minimal}api: { initialize_sources: ["https://github.com/a/b"] }\n`,
      /api\.initialize_sources item 1: "https:\/\/github\.com\/a\/b" is not a repository path/,
    ],
    [
      'an import source that is neither a repository nor an https pattern',
      `${minimal}api: { import_sources: ["http://github.com/a/b"] }\n`,
      /api\.import_sources item 1: "http:\/\/github\.com\/a\/b" is not a repository path/,
    ],
    [
      'an https import pattern with credentials',
      `${minimal}api: { import_sources: ["https://u:p@github.com"] }\n`,
      /api\.import_sources item 1: "https:\/\/u:p@github\.com" is not an import source pattern/,
    ],
    ['an import size without a unit it knows', `${minimal}api: { import_max_size: "1GB" }\n`, /api\.import_max_size "1GB" is not a size \(examples: 65536, 512MiB, 1GiB\)/],
    ['a non-origin CORS entry', `${minimal}server: { cors_origins: ["https://a.example.com/path"] }\n`, /server\.cors_origins item 1: "https:\/\/a\.example\.com\/path" is not an origin/],
    ['an unknown role', `${minimal}server: { roles: [serve, web] }\n`, /server\.roles item 2: "web" is not a role \(expected serve, maintain, events\)$/],
    [
      'a bad proxy range',
      `${minimal}auth: { token_secret: ${SECRET}, trusted_proxies: [10.0.0.0/33] }\n`.replace(/^auth: \{ token_secret: [^}]*\}\n/m, ''),
      /auth\.trusted_proxies item 1: "10\.0\.0\.0\/33" is not an IP address or CIDR range$/,
    ],
    ['a bad denied target range', `${minimal}events: { denied_target_ranges: [10.0.0.0/8, example.com] }\n`, /events\.denied_target_ranges item 2: "example\.com" is not an IP address or CIDR range$/],
    ['a bad listen address', `${minimal}server: { listen: "8090" }\n`, /server\.listen "8090" is not host:port/],
    ['a count of zero', `${minimal}quota: { owner_max_repositories: 0 }\n`, /quota\.owner_max_repositories expected a whole number of at least 1, got 0$/],
    ['a count that is no number', `${minimal}quota: { owner_max_repositories: many }\n`, /quota\.owner_max_repositories expected a whole number of at least 1, got string$/],
    ['a list for a string', `${minimal}kubernetes: { namespace: [a] }\n`, /kubernetes\.namespace expected a string, got a list$/],
    ['a webhook namespace that is no namespace name', `${minimal}kubernetes: { webhook_namespace: Hooks }\n`, /kubernetes\.webhook_namespace "Hooks" is not a Kubernetes namespace name$/],
    ['a top level that is not a mapping', '- a\n- b\n', /the top level must be a mapping of keys$/],
    ['project tokens without a namespace', `${minimal}kubernetes: { project_tokens: true }\n`, /^kubernetes\.project_tokens needs kubernetes\.namespace: .*set kubernetes\.namespace$/],
  ])('refuses %s with one line naming the key', (_what, text, expected) => {
    if (text === null) {
      expect(() => loadConfig(join(dir, 'nope.yaml'), KEYS)).toThrow(expected);
      return;
    }
    expect(failure(text)).toMatch(expected);
  });

  it('refuses invalid YAML by position, without quoting the line', () => {
    const message = failure(`store: { bucket: repos }\nauth:\n  token_secret: ${SECRET}\n   bad: [\n`);
    expect(message).toMatch(/^config .*: invalid YAML at line \d+, column \d+ \([A-Z_]+\)$/);
  });

  it('refuses duplicate keys', () => {
    expect(failure(`${minimal}store: { bucket: other }\n`)).toMatch(/invalid YAML at line 3, column 1 \(DUPLICATE_KEY\)/);
  });

  it('names the variable of a bad or unknown override', () => {
    expect(failure(minimal, { ...KEYS, SERVICE__SERVER__DRAIN_TIMEOUT: 'soon' })).toMatch(/^environment SERVICE__SERVER__DRAIN_TIMEOUT: server\.drain_timeout "soon" is not a duration/);
    expect(failure(minimal, { ...KEYS, SERVICE__EVENTS__WEBHOOK_SECRT: 'hook-secret' })).toBe('environment SERVICE__EVENTS__WEBHOOK_SECRT: events.webhook_secrt is not a configuration key');
    expect(failure(minimal, { ...KEYS, SERVICE__AUTH__TOKEN_SECRET: 'short-secret' })).toBe('environment SERVICE__AUTH__TOKEN_SECRET: auth.token_secret must be at least 32 bytes long');
    expect(failure(minimal, { ...KEYS, SERVICE__STORE__S3__FORCE_PATH_STYLE: 'yes' })).toMatch(/FORCE_PATH_STYLE: store\.s3\.force_path_style expected true or false, got "yes"$/);
  });

  it("reads the process's own variables, CW_LOG_LEVEL and KUBECONFIG, and names a bad one", () => {
    expect(loadConfig(file(minimal), { ...KEYS, CW_LOG_LEVEL: 'warn', KUBECONFIG: '/k' }).environment).toEqual({ logLevel: 'warn', kubeconfig: '/k' });
    expect(failure(minimal, { ...KEYS, CW_LOG_LEVEL: 'loud' })).toBe('CW_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
  });

  it('needs the AWS keys in the environment when credentials is env (the default)', () => {
    expect(failure(minimal, { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' })).toMatch(/store\.s3\.credentials is "env" \(the default\) but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set/);
  });
});
