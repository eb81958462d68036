import { describe, expect, it } from 'vitest';
import { configFailure } from '../src/config/testing/config-failure.ts';
import { operatorConfig } from './config.ts';
import { dnsSettingsFromEnv } from './dns-settings.ts';

const SEALING_KEY = Buffer.alloc(32, 7).toString('base64');
const TLS = { CW_ACME_DIRECTORY_URL: 'https://ca.example/dir', CW_TLS_SEALING_KEY: SEALING_KEY, CW_S3_BUCKET: 'artifacts' };

describe('operatorConfig', () => {
  it('reads the ACME settings, never showing the sealing key in an error', () => {
    const config = operatorConfig({
      ...TLS,
      CW_ACME_EMAIL: 'ops@example.com',
      CW_ACME_PROFILE: 'shortlived',
      CW_ACME_EAB_KID: 'k',
      CW_ACME_EAB_HMAC_KEY: 'h',
      CW_ACME_HTTP01_SELF_CHECK_URL: 'http://runtime',
      CW_TLS_BASE_ZONE_ID: 'Z0123',
    });
    expect(config.tls).toEqual({
      acme: { directoryUrl: 'https://ca.example/dir', contact: ['mailto:ops@example.com'], externalAccountBinding: { keyId: 'k', hmacKey: 'h' }, profile: 'shortlived' },
      sealingKey: Buffer.alloc(32, 7),
      http01SelfCheckUrl: 'http://runtime',
      ordersPerHour: 100,
      baseZoneId: 'Z0123',
    });
    expect(configFailure(() => operatorConfig({ CW_TLS_SEALING_KEY: 'secret-value-not-base64-of-32' }))).not.toContain('secret-value');
  });

  it('builds in Jobs with CW_BUILD_RUNNER=job, told where by CW_BUILD_JOB_*, which it then requires', () => {
    const buckets = { CW_GIT_BUCKET: 'git', CW_S3_BUCKET: 'artifacts', CW_BUILD_RUNNER: 'job' };
    expect(() => operatorConfig(buckets)).toThrow('CW_BUILD_RUNNER=job needs CW_BUILD_JOB_NAMESPACE and CW_BUILD_JOB_IMAGE');
    expect(operatorConfig({ ...buckets, CW_BUILD_JOB_NAMESPACE: 'cloudwright-builds', CW_BUILD_JOB_IMAGE: 'img:1' }).buildJobs).toMatchObject({ namespace: 'cloudwright-builds', image: 'img:1' });
    // The local runner reads none of them.
    expect(operatorConfig({ ...buckets, CW_BUILD_RUNNER: 'local', CW_BUILD_JOB_NAMESPACE: 'cloudwright-builds' }).buildJobs).toBeUndefined();
  });

  it('bounds builds in all, per project and per user, each bound within the one above it', () => {
    const local = { CW_GIT_BUCKET: 'git', CW_S3_BUCKET: 'artifacts', CW_BUILD_RUNNER: 'local' };
    expect(operatorConfig(local).builds?.concurrency).toEqual({ total: 2, perProject: 1, perUser: 1 });
    // A user's bound follows the project's unless set.
    expect(operatorConfig({ ...local, CW_BUILD_CONCURRENCY: '8', CW_BUILD_CONCURRENCY_PER_PROJECT: '2' }).builds?.concurrency).toEqual({ total: 8, perProject: 2, perUser: 2 });
    expect(operatorConfig({ ...local, CW_BUILD_CONCURRENCY: '8', CW_BUILD_CONCURRENCY_PER_USER: '4' }).builds?.concurrency).toEqual({ total: 8, perProject: 1, perUser: 4 });
    expect(() => operatorConfig({ ...local, CW_BUILD_CONCURRENCY_PER_USER: '3' })).toThrow('CW_BUILD_CONCURRENCY_PER_USER (3) must not be more than CW_BUILD_CONCURRENCY (2)');
    expect(() => operatorConfig({ ...local, CW_BUILD_CONCURRENCY_PER_PROJECT: '2', CW_BUILD_CONCURRENCY_PER_USER: '1' })).toThrow(
      'CW_BUILD_CONCURRENCY_PER_USER (1) must not be less than CW_BUILD_CONCURRENCY_PER_PROJECT (2)',
    );
  });

  it('bounds the repositories built and the copies kept between builds (review-162 F2)', () => {
    const local = { CW_GIT_BUCKET: 'git', CW_S3_BUCKET: 'artifacts', CW_BUILD_RUNNER: 'local' };
    expect(operatorConfig(local).builds?.sources).toEqual({ maxRepositoryBytes: 1024 ** 3, cacheBytes: 1024 ** 3 });
    expect(operatorConfig({ ...local, CW_BUILD_MAX_REPOSITORY: '256Mi', CW_BUILD_REPOSITORY_CACHE: '64Mi' }).builds?.sources).toEqual({
      maxRepositoryBytes: 256 * 1024 ** 2,
      cacheBytes: 64 * 1024 ** 2,
    });
    expect(() => operatorConfig({ ...local, CW_BUILD_MAX_REPOSITORY: 'lots' })).toThrow(/CW_BUILD_MAX_REPOSITORY/);
  });

  it("has today's defaults, frozen", () => {
    const config = operatorConfig({});
    expect(config).toEqual({
      port: 8080,
      leaderElection: { namespace: 'default' },
      logLevel: 'info',
      podNamespace: 'default',
      instance: '',
      runtimeUnavailableGraceMs: 30_000,
      dnsEnv: {},
      projectStoredBuildsQuota: 2 * 1024 ** 3,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    expect(
      operatorConfig({
        KUBECONFIG: '/k',
        CW_OPERATOR_PORT: '8081',
        CW_OPERATOR_HOST: '127.0.0.1',
        CW_LOG_LEVEL: 'warn',
        POD_NAMESPACE: 'cloudwright',
        HOSTNAME: 'cloudwright-operator-0',
        CW_WATCH_NAMESPACE: 'p1',
        CW_PROJECT_ROLE: 'cloudwright-operator-project',
        CW_SERVICE_ACCOUNT: 'cw-operator',
        CW_RUNTIME_BASE_DOMAIN: 'apps.example.com',
        CW_RUNTIME_UNAVAILABLE_GRACE: '2m',
        CW_DNS_RECHECK_INTERVAL_SECONDS: '60',
        CW_GIT_BUCKET: 'git',
        CW_S3_BUCKET: 'artifacts',
        CW_S3_ENDPOINT: 'http://127.0.0.1:9000',
        CW_S3_ACCESS_KEY_ID: 'id',
        CW_S3_SECRET_ACCESS_KEY: 'secret',
        CW_PROJECT_STORED_BUILDS_QUOTA: '5Gi',
      }),
    ).toEqual({
      kubeconfig: '/k',
      port: 8081,
      host: '127.0.0.1',
      leaderElection: { namespace: 'cloudwright' },
      logLevel: 'warn',
      instance: 'cloudwright-operator-0',
      watchNamespace: 'p1',
      podNamespace: 'cloudwright',
      projectAccess: { clusterRole: 'cloudwright-operator-project', serviceAccount: { namespace: 'cloudwright', name: 'cw-operator' } },
      runtimeBaseDomain: 'apps.example.com',
      runtimeUnavailableGraceMs: 120_000,
      dnsEnv: { CW_DNS_RECHECK_INTERVAL_SECONDS: '60' },
      git: { bucket: 'git', s3: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } } },
      artifacts: { bucket: 'artifacts', s3: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } } },
      projectStoredBuildsQuota: 5 * 1024 ** 3,
    });
  });

  it('hands the DNS settings it checked to the DNS controllers, private nameservers included', () => {
    const dns = dnsSettingsFromEnv(operatorConfig({ CW_DNS_PROVIDER: 'memory', CW_DNS_ALLOW_PRIVATE_NAMESERVERS: '1' }).dnsEnv, 'apps.test');
    expect(dns.delegation.nameservers?.refusal('10.0.0.53')).toBeUndefined();
    dns.close();
  });

  it('runs without a Lease given CW_LEADER_ELECTION=false (or 0)', () => {
    expect(operatorConfig({ CW_LEADER_ELECTION: 'false' }).leaderElection).toBe(false);
    expect(operatorConfig({ CW_LEADER_ELECTION: '0' }).leaderElection).toBe(false);
    expect(operatorConfig({ CW_LEADER_ELECTION: 'true' }).leaderElection).toEqual({ namespace: 'default' });
  });

  it.each([
    [{ CW_OPERATOR_PORT: '8081/tcp' }, 'CW_OPERATOR_PORT must be a port number from 1 to 65535, got "8081/tcp"'],
    [{ CW_OPERATOR_HOST: 'localhost' }, 'CW_OPERATOR_HOST must be an IP address (such as 127.0.0.1), got "localhost"'],
    [{ CW_LEADER_ELECTION: 'off' }, 'CW_LEADER_ELECTION must be true or false (or 1 or 0), got "off"'],
    [{ POD_NAMESPACE: 'a.b' }, 'POD_NAMESPACE must be a Kubernetes namespace name, got "a.b"'],
    [{ CW_WATCH_NAMESPACE: '-p1' }, 'CW_WATCH_NAMESPACE must be a Kubernetes namespace name, got "-p1"'],
    [{ CW_PROJECT_ROLE: 'Cloudwright/Project' }, 'CW_PROJECT_ROLE must be a ClusterRole name, got "Cloudwright/Project"'],
    [{ CW_PROJECT_ROLE: 'r', CW_SERVICE_ACCOUNT: 'a b' }, 'CW_SERVICE_ACCOUNT must be a ServiceAccount name, got "a b"'],
    [{ CW_RUNTIME_BASE_DOMAIN: 'apps example' }, 'CW_RUNTIME_BASE_DOMAIN must be a host name (such as apps.example.com), got "apps example"'],
    [{ CW_RUNTIME_UNAVAILABLE_GRACE: '1h' }, 'CW_RUNTIME_UNAVAILABLE_GRACE must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 0 ms to 600000 ms, got "1h"'],
    [{ CW_DNS_PROVIDER: 'bind' }, 'CW_DNS_PROVIDER must be one of route53, memory, got "bind"'],
    [{ CW_DNS_ALLOW_PRIVATE_NAMESERVERS: 'yes' }, 'CW_DNS_ALLOW_PRIVATE_NAMESERVERS must be true or false (or 1 or 0), got "yes"'],
    [{ CW_GIT_BUCKET: 'git', CW_S3_SECRET_ACCESS_KEY: 'do-not-print-me' }, 'CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)'],
    [{ CW_S3_ACCESS_KEY_ID: 'AKIA-NOT-SHOWN', CW_S3_SECRET_ACCESS_KEY: 's', CW_S3_FORCE_PATH_STYLE: 'yes' }, 'CW_S3_FORCE_PATH_STYLE must be true or false (or 1 or 0), got "yes"'],
    [{ CW_ACME_DIRECTORY_URL: 'https://ca.example/dir', CW_S3_BUCKET: 'a' }, 'CW_ACME_DIRECTORY_URL needs CW_TLS_SEALING_KEY (the key certificate keys are sealed with in the bucket)'],
    [{ CW_TLS_SEALING_KEY: 'c2hvcnQ=' }, 'CW_TLS_SEALING_KEY must be base64 of 32 random bytes (openssl rand -base64 32)'],
    [{ CW_ACME_DIRECTORY_URL: 'https://ca.example/dir', CW_TLS_SEALING_KEY: SEALING_KEY }, 'CW_ACME_DIRECTORY_URL needs CW_S3_BUCKET (certificate keys are sealed in the artifact bucket)'],
    [{ ...TLS, CW_ACME_EAB_KID: 'kid' }, 'CW_ACME_EAB_KID and CW_ACME_EAB_HMAC_KEY go together'],
    [{ ...TLS, CW_ACME_EMAIL: 'ops@example.com,not-an-address' }, 'CW_ACME_EMAIL must be a comma-separated list of email addresses, got "ops@example.com,not-an-address"'],
    [{ ...TLS, CW_ACME_CA_FILE: '/nonexistent/ca.pem' }, 'CW_ACME_CA_FILE cannot be read: ENOENT (/nonexistent/ca.pem)'],
    [{ ...TLS, CW_ACME_ORDERS_PER_HOUR: '0' }, 'CW_ACME_ORDERS_PER_HOUR must be a whole number from 1 to 100000, got "0"'],
  ])('refuses %j in one line naming the variable', (env, message) => {
    expect(configFailure(() => operatorConfig(env))).toBe(message);
  });
});
