import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type DeviceFlow, type TokenStore } from '../src/auth/index.ts';
import type { AppEnvironment } from '../src/platform/app-environment.ts';
import type { AppDatabaseBindings } from '../src/platform/app-database-bindings.ts';
import type { AppDirectory } from '../src/platform/apps.ts';
import type { BuildCatalog } from '../src/platform/builds.ts';
import type { AppSources } from '../src/platform/app-sources/app-sources.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import type { DomainServices } from './services/domain-services.ts';
import type { ProjectDirectory } from './services/projects.ts';
import type { UserDirectory } from './services/users.ts';
import { auth, sessionCookieName } from './plugins/auth.ts';
import { openapi } from './plugins/openapi.ts';
import { notFound } from '../src/fastify-plugins/not-found.ts';
import { connectionProblem, problemDetails, sendProblem } from './plugins/problem-details.ts';
import { callerRateLimiter, DEFAULT_CALLER_LIMITS, rateLimit, type CallerLimits, type RateLimitOptions } from './plugins/rate-limit.ts';
import { accessLogController } from './plugins/access-log.ts';
import { withBufferedLogs } from './plugins/log-destination.ts';
import { apiHttpServer } from './plugins/http-server.ts';
import { echoRequestId, requestIdOptions } from '../src/fastify-plugins/request-id.ts';
import { requestEntry } from './plugins/request-entry.ts';
import { lazyRequestLoggers } from './plugins/request-logger.ts';
import { healthRoutes } from './routes/health.ts';
import type { DependencyReport } from './dependencies.ts';
import { observeOnResponse, requestDurations } from './plugins/request-metrics.ts';
import type { Registry } from 'prom-client';
import { invitationRoutes } from './routes/invitations.ts';
import { projectRoutes } from './routes/projects.ts';
import { deviceRoutes } from './routes/device.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { userRoutes } from './routes/users.ts';
import { appRoutes } from './routes/apps.ts';
import { appLogRoutes, type LogStreamLimits } from './routes/app-logs.ts';
import { AppLogSource } from './services/app-log-source.ts';
import { AppMetrics } from './services/app-metrics.ts';
import { ReplicaMetrics } from './services/replica-metrics.ts';
import { appMetricsRoutes } from './routes/app-metrics.ts';
import { deploymentRoutes } from './routes/deployments.ts';
import type { UploadLimits } from './routes/upload-slots.ts';
import { environmentRoutes } from './routes/environment.ts';
import { databaseBindingRoutes } from './routes/app-database-bindings.ts';
import { appSourceRoutes } from './routes/app-source.ts';
import { appRolloutRoutes } from './routes/app-rollout.ts';
import type { AppRollouts } from './services/app-rollouts.ts';
import { sourceBuildRoutes } from './routes/source-builds.ts';
import { sourceBuildLogRoutes } from './routes/source-build-logs.ts';
import { domainRoutes } from './routes/domains.ts';
import { dnsRecordRoutes } from './routes/dns-records.ts';
import { appDomainRoutes } from './routes/app-domains.ts';
import { databaseRoutes, type DatabaseServices } from './routes/databases.ts';
import { gitTokenRoutes, type GitTokenServices } from './routes/git-tokens.ts';
import { sessionRoutes } from './routes/session.ts';
import { consoleRoutes } from './routes/console.ts';
import { openIdRoutes } from './routes/session-openid.ts';
import type { OpenIdClient } from '../src/auth/openid.ts';
import type { PasswordStore } from '../src/auth/ports.ts';
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from '../src/auth/sessions.ts';
import { BadRequestError } from '../src/errors.ts';
import { audit } from './plugins/audit.ts';
import type { AuditTrail } from './audit/audit-trail.ts';
import { auditRoutes } from './routes/audit.ts';

/** Everything the routes need; `main.ts` builds the real ones, tests may build their own. */
export interface AppDependencies {
  /** What `/readyz` reports of the API's dependencies (main.ts: a DependencyMonitor); absent: none. */
  dependencies?: DependencyReport;
  /** Where request metrics go (main.ts serves it on the metrics port); absent: none kept. */
  metrics?: Registry;
  platform?: PlatformDependencies;
  now?: () => Date;
  /** Per-caller request rate, writes and requests in flight (and per-address rate of failed authentications); default `DEFAULT_CALLER_LIMITS`. */
  rateLimit?: CallerLimits;
  /** Per-address rate of starting device sign-ins (public, each stores a grant); default `DEVICE_CODE_RATE_LIMIT`. */
  deviceSignInRateLimit?: RateLimitOptions;
  /** Deploy uploads read at once; default `DEFAULT_UPLOAD_LIMITS`. */
  uploadLimits?: UploadLimits;
  /** App log streams followed at once; default `DEFAULT_LOG_STREAM_LIMITS`. */
  logStreamLimits?: LogStreamLimits;
  /** Where the web console's build is (console/dist); absent or unbuilt: /console/ is not served. */
  consoleDir?: string;
  /** Console sessions: their lifetimes and whether the cookie is Secure (default: DEFAULT_SESSION_POLICY, Secure). */
  sessions?: { policy?: SessionPolicy; secureCookies?: boolean; signInRateLimit?: RateLimitOptions; openId?: { client: OpenIdClient; createUsers: boolean } };
}

export interface PlatformDependencies {
  tokens: TokenStore;
  projects: ProjectDirectory;
  deviceFlow: DeviceFlow;
  users: UserDirectory;
  /** Runtime apps (RuntimeApp resources) of projects. */
  apps: AppDirectory;
  /** Deploys, rollbacks and build listings. */
  builds: BuildCatalog;
  /** App environment variables. */
  environment: AppEnvironment;
  /** Apps' database bindings. */
  databaseBindings: AppDatabaseBindings;
  /** Repositories connected to apps and the builds made from them; without them those routes are not served. */
  sources?: AppSources;
  /** Apps' rollout policies and the requests to their rollouts; without them those routes are not served. */
  rollouts?: AppRollouts;
  /** Where build logs are (the artifact bucket); absent: the build log route answers 503. */
  buildLogs?: ObjectStore;
  /** Project domains, their DNS records and app hostnames; without them those routes are not served. */
  dns?: DomainServices;
  /** People's local passwords; with them the console's sign-in routes are served (routes/session.ts). */
  passwords?: PasswordStore;
  /** SQL databases; without them (no CW_DB_URL) those routes are not served. */
  databases?: DatabaseServices;
  /** Projects' tokens for the repository service; without them those routes are not served. */
  gitTokens?: GitTokenServices;
  /** Apps' live logs, read from the runtime replicas; absent: the route streams nothing (no replica). */
  appLogs?: AppLogSource;
  /** Apps' requests over time, merged from the runtime replicas' windows; absent: no replica, empty series. */
  appMetrics?: AppMetrics;
  /** Projects' audit trails (in the bucket); absent: changes are not recorded and the audit route is not served. */
  audit?: AuditTrail;
}

export const API_VERSION = '0.1.0';
export const REQUEST_TIMEOUT_MS = 300_000;
/** JSON bodies are small; the deploy route sets its own, larger limit. */
const JSON_BODY_LIMIT = 256 * 1024;

/**
 * Bodies are JSON (the OAuth and deploy routes add their own types): Fastify's `text/plain` parser goes, so
 * such a body is a 415 rather than a string the schema then refuses. A JSON content type with no body is
 * accepted on routes that take none: many clients send the header on every request, DELETE included. A
 * request no route matches is answered 404 or 405 whatever its body holds, so that body is not parsed.
 */
function jsonBodiesOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (request.is404 || (body === '' && request.routeOptions.schema?.body === undefined)) return done(null, undefined);
    // Before parsing: the parser's prototype-key scan and the surrogate check below recurse, and ~100,000 levels
    // overflowed the stack (a misleading 400 after some 30 ms of CPU).
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(new BadRequestError(TOO_DEEP), undefined);
    // Fastify types a body parser as maybe async; the default JSON parser is synchronous and reports every error through `done`.
    void parseJson(request, body as string, (err, value) => {
      if (err) return done(parsesAsJson(body as string) ? new BadRequestError(PROTOTYPE_KEYS) : err, undefined);
      // Only a `\uD8xx`-style escape can carry one (decoding the bytes as UTF-8 replaces any other).
      if (ESCAPED_SURROGATE.test(body as string) && hasUnpairedSurrogate(value)) return done(new BadRequestError(UNPAIRED_SURROGATE), undefined);
      done(null, value);
    });
  });
}

/** No body of this API nests nearly as deep. */
const MAX_JSON_DEPTH = 64;
const TOO_DEEP = `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;

/** Whether JSON `text` opens more than `max` arrays and objects inside each other (brackets in strings do not count). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;
/** Such a string would not survive the apiserver, which stores it as U+FFFD: the value would change on the way. */
const UNPAIRED_SURROGATE = 'The body has a string with an unpaired surrogate escape (\\uD800 to \\uDFFF without its pair): not well-formed Unicode.';

/** Whether any string in a parsed JSON value (keys included) holds a lone UTF-16 surrogate. */
function hasUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(hasUnpairedSurrogate);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => !key.isWellFormed() || hasUnpairedSurrogate(item));
  return false;
}

/** Why valid JSON was refused: the parser refuses keys that would reach an object's prototype. */
const PROTOTYPE_KEYS = 'The body is refused: it has a "__proto__" key, or a "constructor" object with a "prototype" key.';

/** Whether `text` is JSON at all, asked only once the parser has refused it, to say why. */
function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Builds the API: plugins first, then every route, registered explicitly. `server.ts` owns listening. */
export async function buildApp(deps: AppDependencies, options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  // A caller's own controller wins (as any option of theirs does); router errors below report to the same one.
  const observeRequest = deps.metrics ? requestDurations(deps.metrics) : undefined;
  const logController = options.logController ?? accessLogController(observeRequest);
  // Fastify tells a log controller of finished requests only in an app with a logger; ours then records the
  // request metrics too, without a hook (plugins/request-metrics.ts).
  const metricsByController = options.logController === undefined && Boolean(options.logger || options.loggerInstance);
  const app = Fastify({
    bodyLimit: JSON_BODY_LIMIT,
    // Node's server, with bodyless requests (nearly all) skipping their stream's life cycle and repeated
    // headers joined rather than dropped: plugins/http-server.ts.
    serverFactory: apiHttpServer,
    // A request (a deploy upload above all) must arrive whole within five minutes, else 408: Node's own
    // default, which Fastify turns off. A slow upload would otherwise hold its upload slot for ever.
    requestTimeout: REQUEST_TIMEOUT_MS,
    ...requestIdOptions,
    logController,
    ...lazyRequestLoggers,
    // Strict input: unknown fields are an error, not silently dropped; no type coercion of bodies.
    // verbose: a refusal of a union of objects can name the union's own description (problem-details.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, verbose: true } },
    // Room for the longest id we accept (a 253-character user id, percent-encoded); longer is a 414.
    routerOptions: { maxParamLength: 1024 },
    // Errors the router raises before any route runs (bad URL encoding, an over-long parameter): no hook
    // runs for them, so the request id and the access line are added here. Fastify starts no clock for
    // them: their line says 0 ms.
    clientErrorHandler: connectionProblem,
    frameworkErrors: (error, request, reply) => {
      echoRequestId(request, reply);
      sendProblem(reply, error.statusCode ?? 400, error.message);
      logController.requestCompleted(null, request, reply);
    },
    // A logger configured without a destination writes through a buffer (plugins/log-destination.ts).
    ...withBufferedLogs(options),
  });
  const now = deps.now ?? (() => new Date());
  problemDetails(app);
  jsonBodiesOnly(app);
  const answerUnmatched = notFound(app, sendProblem, { earlyAnswerHook: false });
  await openapi(app, API_VERSION);
  const callerLimit = deps.rateLimit ?? DEFAULT_CALLER_LIMITS;
  const limiter = callerRateLimiter(callerLimit);
  // The request id, and the limit and 404/405 of requests no route matches: one global hook for all three.
  requestEntry(app, limiter, answerUnmatched);
  // Auth first, then the limiter (it limits by the token auth found). The requests auth refuses never reach
  // the limiter: auth charges a 403 to the caller's limit, and limits 401s by address, as much.
  const secureCookies = deps.sessions?.secureCookies ?? true;
  if (deps.platform) auth(app, deps.platform.tokens, now, { failureLimit: callerLimit, chargeRefusal: limiter.chargeRefusal, sessionCookie: sessionCookieName(secureCookies) });
  rateLimit(app, limiter);

  if (observeRequest && !metricsByController) observeOnResponse(app, observeRequest);
  if (deps.platform) audit(app, { ...(deps.platform.audit ? { trail: deps.platform.audit } : {}), tokens: deps.platform.tokens, now });
  healthRoutes(app, deps.dependencies);
  if (deps.consoleDir && !consoleRoutes(app, deps.consoleDir)) app.log.warn({ dir: deps.consoleDir }, 'the web console is not built there (make console); /console/ is not served');
  if (deps.platform) {
    const platform = deps.platform;
    projectRoutes(app, platform.projects, platform.tokens, platform.builds, () => platform.databases?.databases);
    invitationRoutes(app, platform.projects, platform.tokens);
    tokenRoutes(app, deps.platform.tokens, now);
    deviceRoutes(app, deps.platform.deviceFlow, now, deps.deviceSignInRateLimit);
    userRoutes(app, deps.platform.users);
    if (deps.platform.passwords) {
      const common = {
        policy: deps.sessions?.policy ?? DEFAULT_SESSION_POLICY,
        secureCookies,
        ...(deps.sessions?.signInRateLimit ? { signInRateLimit: deps.sessions.signInRateLimit } : {}),
      };
      const openId = deps.sessions?.openId;
      sessionRoutes(app, deps.platform.tokens, deps.platform.passwords, now, { ...common, ...(openId ? { openIdName: openId.client.settings.name } : {}) });
      if (openId) openIdRoutes(app, openId.client, deps.platform.users, deps.platform.tokens, now, { ...common, createUsers: openId.createUsers });
    }
    const appMetrics = deps.platform.appMetrics ?? new AppMetrics(new ReplicaMetrics({ live: () => [] }));
    appRoutes(app, deps.platform.apps, appMetrics, now);
    appMetricsRoutes(app, deps.platform.apps, deps.platform.builds, appMetrics, now);
    appLogRoutes(app, deps.platform.apps, deps.platform.appLogs ?? new AppLogSource({ live: () => [] }), deps.logStreamLimits);
    deploymentRoutes(app, deps.platform.builds, deps.uploadLimits);
    environmentRoutes(app, deps.platform.environment);
    databaseBindingRoutes(app, deps.platform.databaseBindings);
    if (deps.platform.rollouts) appRolloutRoutes(app, deps.platform.rollouts);
    if (deps.platform.sources) {
      appSourceRoutes(app, deps.platform.sources);
      sourceBuildRoutes(app, deps.platform.sources);
      sourceBuildLogRoutes(app, deps.platform.sources, deps.platform.buildLogs, deps.logStreamLimits);
    }
    if (deps.platform.dns) {
      domainRoutes(app, deps.platform.dns);
      dnsRecordRoutes(app, deps.platform.dns);
      appDomainRoutes(app, deps.platform.dns);
    }
    if (deps.platform.databases) databaseRoutes(app, deps.platform.databases);
    if (deps.platform.gitTokens) gitTokenRoutes(app, deps.platform.gitTokens, now);
    if (deps.platform.audit) auditRoutes(app, deps.platform.audit, deps.platform.projects, deps.platform.tokens);
  }
  await app.ready();
  return app;
}
