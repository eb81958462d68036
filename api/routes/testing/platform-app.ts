// Test helper for *.int.test.ts route tests: the API built on the real Kubernetes-backed stores (as main.ts
// wires them) against the integration project's control plane, with fixtures written through those stores.
import type { LogStreamLimits } from '../app-logs.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect, inject, vi } from 'vitest';
import type { AccessToken } from '../../../src/apis/v1alpha1/access-token.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { User } from '../../../src/apis/v1alpha1/user.ts';
import { createDeviceFlow, issueToken, parseScopes, type Scope } from '../../../src/auth/index.ts';
import { createInformerFactory, eventWriter, NAMESPACES, objectClient, waitFor, type InformerFactory, type KubeConnection, type KubeObject, type ResourceRef } from '../../../src/kube/index.ts';
import { removeTestNamespace, testConnection } from '../../../src/kube/testing/test-kube.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { createAppServices, DEFAULT_RUNTIME_BASE_DOMAIN } from '../../../src/platform/app-services.ts';
import { createDomainServices } from '../../services/domain-services.ts';
import { createAppRollouts } from '../../services/app-rollouts.ts';
import type { DnsSettings } from '../../../operator/dns-settings.ts';
import { ProjectDirectory } from '../../services/projects.ts';
import { ACCESS_TOKENS, APP_HOSTNAMES, BUILDS, DNS_RECORDS, GIT_TOKENS, PROJECT_DOMAINS, PROJECT_LABEL, PROJECTS, RUNTIME_APPS, USERS } from '../../../src/platform/resources.ts';
import type { GitToken } from '../../../src/apis/v1alpha1/git-token.ts';
import { GitTokenDirectory } from '../../../src/platform/git-tokens.ts';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import { Registry } from 'prom-client';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { appHostnameController } from '../../../operator/controllers/app-hostname/controller.ts';
import { runtimeAppController } from '../../../operator/controllers/runtime-app/controller.ts';
import { projectDomainController } from '../../../operator/controllers/project-domain/controller.ts';
import { scopedInformer } from './scoped-informer.ts';
import { UserDirectory } from '../../services/users.ts';
import { KubeDeviceGrantStore, KubeTokenStore } from '../../stores/index.ts';
import { KubePasswordStore } from '../../stores/kube-password-store.ts';
import type { SessionPolicy } from '../../../src/auth/sessions.ts';
import type { OpenIdClient } from '../../../src/auth/openid.ts';
import { buildApp } from '../../app.ts';
import { AuditTrail } from '../../audit/audit-trail.ts';
import type { CallerLimits, RateLimitOptions } from '../../plugins/rate-limit.ts';
import type { UploadLimits } from '../upload-slots.ts';
import { platformProjectIds } from '../../../src/platform/host-admission.ts';
import { runtimeTargetFromEnv } from '../../../src/platform/domains/runtime-target.ts';

export const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The repository service's URL the fixture's API names in git token answers. */
export const GIT_URL = 'http://git.cw.test';

export interface PlatformApp {
  app: FastifyInstance;
  readonly tokens: KubeTokenStore;
  readonly users: UserDirectory;
  readonly projects: ProjectDirectory;
  /** The control plane the stores write to. */
  readonly conn: KubeConnection;
  /** The run's MinIO bucket, where build artifacts go. */
  readonly artifacts: S3ObjectStore;
  /** The projects' audit trails, in the same bucket (as main.ts keeps them). */
  readonly audit: AuditTrail;
  /** The app's clock runs this far ahead of the real one (for expiry tests). */
  clockOffsetMs: number;
  /** A user created through the user directory (remembered for clean-up). */
  createUser(options?: { admin?: boolean; prefix?: string }): Promise<string>;
  /**
   * A project created through the project directory, owned by `owner`. With `namespace`, its namespace is
   * created too, as the operator (not running in route tests) would.
   */
  createProject(owner: string, options?: { namespace?: boolean }): Promise<string>;
  /**
   * A project domain of `project` whose delegation is verified (`managed`), as the ProjectDomain controller
   * would leave it; resolves once the app's cache shows it. For fixtures without `dns` only: with it, the
   * controller runs here and is the status's one writer.
   */
  managedDomain(project: string, domain: string): Promise<void>;
  /** A token issued through the token store (only its hash is stored); returns the plaintext. */
  tokenFor(userId: string, scopes: readonly Scope[] | string): Promise<string>;
  /** Stops the app and its watches and deletes everything this fixture made. */
  close(): Promise<void>;
}

export interface PlatformAppOptions {
  /**
   * DNS settings (for example a `MemoryDnsProvider` and a parent-zone server, see `memory-dns.ts`): with
   * them the project-domain, DNS-record and app-hostname routes are served. Without them (the default) they
   * are not, as before.
   */
  readonly dns?: DnsSettings;
  /** The runtime's base domain (default `DEFAULT_RUNTIME_BASE_DOMAIN`), for the app and DNS services alike. */
  readonly baseDomain?: string;
  /** The device sign-in start limit (default the API's own). */
  readonly deviceSignInRateLimit?: RateLimitOptions;
  /** The per-caller rate, write and in-flight limits (default the API's own). */
  readonly rateLimit?: CallerLimits;
  /** Deploy uploads read at once (default the API's own). */
  readonly uploadLimits?: UploadLimits;
  /** Console sessions' lifetimes (default DEFAULT_SESSION_POLICY). */
  readonly sessionPolicy?: SessionPolicy;
  /** Console sign-in through an OpenID provider. */
  readonly openId?: { client: OpenIdClient; createUsers: boolean };
  /** Records a domain may hold (default the API's own). */
  readonly maxRecordsPerDomain?: number;
  /** How long the DNS routes wait for a controller's answer (default the API's own, 10 s). */
  readonly dnsAnswerWithinMs?: number;
  /** How long the rollout request routes wait for the operator's echo (default the API's own, 10 s). */
  readonly rolloutAnswerWithinMs?: number;
  /** Builds the RuntimeApp controller keeps per app (its default otherwise); needs `runtimeAppArtifacts`. */
  readonly maxBuildsPerApp?: number;
  /** A project's quota on unpacked active builds (default the API's own). */
  readonly projectUnpackedQuota?: number;
  /** A project's quota on stored builds, for the API and the RuntimeApp controller (default their own). */
  readonly projectStoredBuildsQuota?: number;
  /**
   * The RuntimeApp controller runs on this fixture's projects, as the operator does beside the API (apps are
   * created with its artifact finalizer): this wraps the bucket it deletes deleted apps' artifacts from.
   */
  readonly runtimeAppArtifacts?: (artifacts: S3ObjectStore) => ObjectStore;
  /** How long deleting an app waits for it to be gone (default the API's own, 10 s). */
  readonly appDeleteAnswerWithinMs?: number;
  /** Wraps the bucket as the audit trail uses it (to inject a failure around it). */
  readonly wrapAudit?: (bucket: ObjectStore) => ObjectStore;
  /** Log streams followed at once, and how often their callers are checked again (default the API's own). */
  readonly logStreamLimits?: LogStreamLimits;
}

export async function platformApp(options: PlatformAppOptions = {}): Promise<PlatformApp> {
  const conn = testConnection();
  const informers = createInformerFactory(conn);
  const artifacts = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
  const baseDomain = options.baseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN;
  const appServices = createAppServices(conn, informers, {
    artifacts,
    ...(options.baseDomain ? { baseDomain } : {}),
    projectUnpackedQuota: options.projectUnpackedQuota,
    projectStoredBuildsQuota: options.projectStoredBuildsQuota,
    deleteAnswerWithinMs: options.appDeleteAnswerWithinMs,
  });
  const rollouts = createAppRollouts(conn, informers, { answerWithinMs: options.rolloutAnswerWithinMs });
  // Built before the informers start, on the same caches (the factory hands out one informer per kind).
  const dns = options.dns
    ? createDomainServices(conn, informers, { settings: options.dns, baseDomain, maxRecordsPerDomain: options.maxRecordsPerDomain, answerWithinMs: options.dnsAnswerWithinMs })
    : undefined;
  const made = { users: new Set<string>(), projects: new Set<string>(), namespaces: new Set<string>() };
  // The DNS routes write intent and wait for the controllers' answer: run them here, on this fixture's projects only.
  const mine = (obj: KubeObject) => made.namespaces.has(obj.metadata?.namespace ?? '');
  const controllers: Controller[] = options.dns ? dnsControllers(conn, informers, options.dns, mine) : [];
  // As the operator runs beside the API: apps carry the artifact finalizer, and builds past the bound are pruned.
  const events = new EventRecorder({ writer: eventWriter(conn), component: 'route-test', log: silentLogger });
  const apps = scopedInformer(informers.informer<RuntimeApp>(RUNTIME_APPS), mine);
  const builds = scopedInformer(informers.informer<Build>(BUILDS), mine);
  controllers.push(
    runtimeAppController({
      kube: conn,
      apps,
      builds,
      artifacts: options.runtimeAppArtifacts ? options.runtimeAppArtifacts(artifacts) : artifacts,
      ...(options.maxBuildsPerApp ? { maxBuildsPerApp: options.maxBuildsPerApp } : {}),
      ...(options.projectStoredBuildsQuota ? { projectStoredBuildsQuota: options.projectStoredBuildsQuota } : {}),
      events,
      registry: new Registry(),
      log: silentLogger,
    }) as unknown as Controller,
  );
  const tokens = new KubeTokenStore(conn, { informers });
  const projectCache = informers.informer<Project>(PROJECTS);
  // As cw-api's main reserves them, for the default runtime target (`runtime.<base>`).
  const projects = new ProjectDirectory(conn, projectCache, platformProjectIds(baseDomain, [runtimeTargetFromEnv({}, baseDomain).hostname ?? '']));
  const users = new UserDirectory(conn, informers.informer<User>(USERS), projectCache, tokens, { invitations: projects });
  const gitTokens = new GitTokenDirectory(conn, informers.informer<GitToken>(GIT_TOKENS), projectCache);
  const audit = new AuditTrail(options.wrapAudit ? options.wrapAudit(artifacts) : artifacts);
  const grantNamespace = unique('grants');
  const grants = new KubeDeviceGrantStore(conn, { namespace: grantNamespace });
  informers.start();
  await tokens.start(AbortSignal.timeout(30_000));
  await informers.waitForSync(AbortSignal.timeout(30_000));
  await Promise.all(controllers.map((c) => c.start()));

  const fixture: PlatformApp = {
    app: undefined as unknown as FastifyInstance,
    tokens,
    users,
    projects,
    conn,
    artifacts,
    audit,
    clockOffsetMs: 0,
    async createUser({ admin = false, prefix = admin ? 'admin' : 'user' } = {}) {
      const id = unique(prefix);
      made.users.add(id);
      await users.create({ userId: id, admin });
      return id;
    },
    async createProject(owner, { namespace = false } = {}) {
      const id = unique('proj');
      made.projects.add(id);
      const project = await projects.create({ projectId: id, name: id, owner });
      if (namespace) {
        made.namespaces.add(id);
        await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name: project.project_id, labels: { [PROJECT_LABEL]: id } } });
      }
      // The project cache fills through its watch; authorisation reads it.
      await vi.waitFor(async () => expect(await tokens.getMembership(id, owner)).toBe('owner'), { timeout: 10_000, interval: 20 });
      return id;
    },
    async managedDomain(project, domain) {
      const domains = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
      const name = domain.replace(/\./g, '-');
      await domains.create({ apiVersion: API_VERSION, kind: 'ProjectDomain', metadata: { name, namespace: project }, spec: { domain } });
      // As the ProjectDomain controller leaves a delegated domain: a zone, managed, delegated since now.
      await domains.patchStatus(project, name, { status: { state: 'managed', hostedZoneId: `Z-${name}`, delegatedAt: new Date().toISOString() } });
      await waitFor(informers.informer<ProjectDomain>(PROJECT_DOMAINS), `${project}/${name}`, (d) => d?.status?.state === 'managed', 10_000);
    },
    async tokenFor(userId, scopes) {
      const issued = await issueToken(userId, { scopes: parseScopes(scopes), description: 'route test' }, tokens, new Date());
      return issued.token;
    },
    async close() {
      await fixture.app?.close();
      await Promise.all(controllers.map((c) => c.stop()));
      tokens.stop();
      informers.stop();
      const tokenClient = objectClient<AccessToken>(conn, ACCESS_TOKENS);
      const { items } = await tokenClient.list('');
      await Promise.all([
        ...items.filter((t) => made.users.has(t.spec.user)).map((t) => tokenClient.delete('', t.metadata?.name ?? '')),
        ...[...made.users].map((name) => objectClient(conn, USERS).delete('', name)),
        ...[...made.projects].map((name) => objectClient(conn, PROJECTS).delete('', name)),
        objectClient(conn, NAMESPACES).delete('', grantNamespace),
        // The controllers are stopped: the finalizers they set are released, or the namespaces never go.
        ...[...made.namespaces].map((name) => removeTestNamespace(conn, name)),
      ]);
    },
  };
  fixture.app = await buildApp({
    deviceSignInRateLimit: options.deviceSignInRateLimit,
    uploadLimits: options.uploadLimits,
    ...(options.logStreamLimits ? { logStreamLimits: options.logStreamLimits } : {}),
    rateLimit: options.rateLimit,
    now: () => new Date(Date.now() + fixture.clockOffsetMs),
    platform: {
      tokens,
      projects,
      users,
      deviceFlow: createDeviceFlow({ grants, tokens, verificationUri: 'http://cw.test/device' }),
      passwords: new KubePasswordStore(conn, { namespace: grantNamespace }),
      ...appServices,
      rollouts,
      buildLogs: artifacts,
      ...(dns ? { dns } : {}),
      gitTokens: { gitTokens, gitUrl: GIT_URL },
      audit,
    },
    // Sign-ins here all come from one address, far more often than a person's.
    sessions: {
      secureCookies: false,
      signInRateLimit: { perSecond: 100, burst: 1000 },
      ...(options.sessionPolicy ? { policy: options.sessionPolicy } : {}),
      ...(options.openId ? { openId: options.openId } : {}),
    },
  });
  return fixture;
}

function dnsControllers(conn: KubeConnection, informers: InformerFactory, settings: DnsSettings, mine: (obj: KubeObject) => boolean): Controller[] {
  const scoped = <T extends KubeObject>(resource: ResourceRef) => scopedInformer(informers.informer<T>(resource), mine);
  const common = {
    kube: conn,
    domains: scoped<ProjectDomain>(PROJECT_DOMAINS),
    records: scoped<DnsRecord>(DNS_RECORDS),
    hostnames: scoped<AppHostname>(APP_HOSTNAMES),
    settings,
    registry: new Registry(),
    log: silentLogger,
  };
  return [
    projectDomainController({ ...common, events: new EventRecorder({ writer: eventWriter(conn), component: 'route-test', log: silentLogger }) }),
    appHostnameController({ ...common, apps: scoped<RuntimeApp>(RUNTIME_APPS) }),
  ];
}
