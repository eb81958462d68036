import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { DEFAULT_MAX_STARTS_PER_LIFETIME, InvalidScopeError, type DeviceFlow } from '../../src/auth/index.ts';
import { NotFoundError, PublicError } from '../../src/errors.ts';
import { principalOf } from '../plugins/auth.ts';
import type { RateLimitOptions } from '../plugins/rate-limit.ts';
import { describeRate, TokenBuckets } from '../plugins/token-buckets.ts';
import {
  ApproveBody,
  DEVICE_CODE_GRANT_TYPE,
  DeviceAuthorization,
  DeviceAuthorizationProblem,
  DeviceCodeBody,
  DevicePageQuery,
  DeviceRequest,
  DeviceRequestParams,
  DeviceToken,
  DeviceTokenBody,
  OAuthError,
  UserCodeBody,
} from '../schemas/device.ts';
import { sendProblem, validationDetail } from '../plugins/problem-details.ts';
import { errorResponses } from '../schemas/problem.ts';
import { devicePage, DEVICE_PAGE_HEADERS } from './device-page.ts';

const tags = ['device'];
/** Starting sign-ins, per client address: one every 10 s, bursts of 10 (a person signs in now and then). */
export const DEVICE_CODE_RATE_LIMIT: RateLimitOptions = { perSecond: 0.1, burst: 10 };
const FORM = 'application/x-www-form-urlencoded';
const consumes = ['application/json', FORM];
// Both answers carry secrets (a device code, a token): no cache may keep them (RFC 6749 §5.1).
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** The two public OAuth requests carry a scope list or a device code: a few hundred bytes (413 past this). */
const OAUTH_BODY_LIMIT = 8 * 1024;

/** Guesses of user codes a person may make: codes that name no sign-in, 10 in a burst, then one every 6 s. */
const USER_CODE_MISSES = { perSecond: 1 / 6, burst: 10 };

/**
 * The OAuth 2.0 device authorization grant (RFC 8628), e.g. for `cw login`: the device asks for a code,
 * the user approves it with a token they already hold, the device polls for its own token. The rules live
 * in src/auth/device-flow.ts; these handlers only translate.
 */
export function deviceRoutes(app: FastifyInstance, flow: DeviceFlow, now: () => Date, signInRateLimit: RateLimitOptions = DEVICE_CODE_RATE_LIMIT): void {
  // The two routes OAuth clients call accept form bodies too; an encapsulated scope keeps that parser off
  // every other route.
  void app.register(async (scope) => {
    scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: OAUTH_BODY_LIMIT }, (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
    oauthRoutes(scope, flow, now, signInRateLimit);
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // RFC 8628 §5.1: user codes are short, so guessing them is limited per person (each guess is also a read of the
  // apiserver): codes that name no sign-in, 10 in a burst then one every 6 s, whatever the person's tokens.
  const misses = new TokenBuckets(USER_CODE_MISSES, 10_000, () => now().getTime());
  const guarded = async <T>(request: FastifyRequest, answer: () => Promise<T>): Promise<T> => {
    const user = principalOf(request).userId;
    if (!misses.hasRoom(user)) {
      const retryAfter = misses.retryAfterSeconds(user);
      throw new PublicError(429, `Too many user codes that name no sign-in (limit: ${describeRate(USER_CODE_MISSES.perSecond)}); check the code the device shows and retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
      });
    }
    try {
      return await answer();
    } catch (err) {
      if (err instanceof NotFoundError) misses.take(user);
      throw err;
    }
  };

  r.get('/v1/device/requests/:userCode', {
    config: { auth: { scope: 'tokens:write' } },
    schema: {
      tags,
      summary: 'Review a device sign-in before answering it: the scopes the device asks for, and until when',
      description: 'Needs the scope approving needs. 404 for an unknown or expired code, 409 once it has been answered.',
      params: DeviceRequestParams,
      response: { 200: Type.Object({ device_request: DeviceRequest }), ...errorResponses(400, 404, 409, 429, 500) },
    },
    handler: async (request) => {
      const pending = await guarded(request, () => flow.inspect(request.params.userCode, now()));
      return { device_request: { user_code: pending.userCode, scopes: [...pending.scopes], expires_at: pending.expiresAt.toISOString() } };
    },
  });

  for (const decision of ['approve', 'deny'] as const) {
    r.post(`/v1/device/${decision}`, {
      config: { auth: { scope: 'tokens:write' } },
      schema: {
        tags,
        summary: decision === 'approve' ? 'Approve a device sign-in: the device gets a token acting as you, with the scopes it asked for' : 'Deny a device sign-in',
        description:
          decision === 'approve'
            ? 'Every scope the device asked for must be one your token holds (else 403). Review the request first ' +
              '(`GET /v1/device/requests/{user_code}`) and send the scopes you saw as `scopes`: a request for others is then refused (409). ' +
              'The token the device gets expires no later than yours. Approving twice is a no-op.'
            : 'Any user may refuse a request (a token with `tokens:write`); the device then gets `access_denied`.',
        body: decision === 'approve' ? ApproveBody : UserCodeBody,
        response: {
          204: Type.Null({ description: decision === 'approve' ? 'Approved.' : 'Denied.' }),
          ...errorResponses(400, 404, 409, 413, 415, 429, 500),
        },
      },
      handler: async (request, reply) => {
        // The deny body has no `scopes` (its schema refuses one).
        const { user_code: userCode, scopes } = request.body as Static<typeof ApproveBody>;
        await guarded(request, () => (decision === 'approve' ? flow.approve(userCode, principalOf(request), now(), scopes) : flow.deny(userCode, principalOf(request), now())));
        return reply.code(204).send(null);
      },
    });
  }

  r.get('/device', {
    config: { auth: false },
    schema: { hide: true, querystring: DevicePageQuery },
    handler: async (request, reply) =>
      reply
        .headers(DEVICE_PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(devicePage(request.query.user_code ?? '')),
  });
}

function oauthRoutes(app: FastifyInstance, flow: DeviceFlow, now: () => Date, signInRateLimit: RateLimitOptions): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/v1/device/code', {
    // Public, and each call stores a grant in the cluster: a limit of its own, far below the API's.
    config: { auth: false, rateLimit: signInRateLimit },
    bodyLimit: OAUTH_BODY_LIMIT,
    errorHandler: oauthAuthorizationErrors,
    schema: {
      tags,
      summary: 'Start a device sign-in (RFC 8628 device authorization request)',
      description:
        'Public. Send `scope` (space-separated scope names) as JSON or as a form body. Show the user `user_code` and ' +
        '`verification_uri`, then poll `POST /v1/device/token`. Errors here are problem details; a 400 also carries ' +
        'the OAuth members `error` (`invalid_scope` or `invalid_request`) and `error_description`, which OAuth ' +
        'clients read (RFC 8628 §3.2). Limited to ' +
        `${signInRateLimit.burst} sign-ins at once and one every ${1 / signInRateLimit.perSecond} s after that per client address (429), ` +
        `and per API process to ${DEFAULT_MAX_STARTS_PER_LIFETIME} within a code lifetime (503).`,
      consumes,
      body: DeviceCodeBody,
      response: {
        200: DeviceAuthorization,
        ...errorResponses(413, 415, 429, 500, 503),
        400: { description: 'Invalid request or unknown scope.', content: { 'application/problem+json': { schema: DeviceAuthorizationProblem } } },
      },
    },
    handler: async (request, reply) => reply.headers(NO_STORE).send(await flow.start(request.body.scope, now())),
  });

  r.post('/v1/device/token', {
    config: { auth: false },
    bodyLimit: OAUTH_BODY_LIMIT,
    attachValidation: true,
    errorHandler: oauthClientErrors,
    schema: {
      tags,
      summary: 'Poll for the token of a device sign-in (RFC 8628 device access token request)',
      description:
        'Public. Form or JSON body with `grant_type=urn:ietf:params:oauth:grant-type:device_code` and `device_code`. ' +
        'Until the user answers, 400 with `error` `authorization_pending` (or `slow_down`: polled too fast). ' +
        'Unlike every other route, 400 answers carry an OAuth error body `{error, error_description}` instead of a ' +
        'problem detail (RFC 8628 §3.5), because OAuth clients branch on `error`.',
      consumes,
      body: DeviceTokenBody,
      response: { 200: DeviceToken, 400: OAuthError, ...errorResponses(413, 415, 500) },
    },
    handler: async (request, reply) => {
      reply.headers(NO_STORE);
      if (request.validationError) return reply.code(400).send(invalidTokenRequest(request));
      const result = await flow.poll(request.body.device_code, now());
      if (result.status === 200) request.log.info({ token_id: result.tokenId }, 'device sign-in redeemed');
      return reply.code(result.status).send(result.body);
    },
  });
}

/** A token request the schema refused, as an OAuth error (RFC 6749 §5.2). */
function invalidTokenRequest(request: FastifyRequest) {
  const grantType = (request.body as { grant_type?: unknown } | undefined)?.grant_type;
  if (typeof grantType === 'string' && grantType !== DEVICE_CODE_GRANT_TYPE) {
    return { error: 'unsupported_grant_type', error_description: `Only grant_type=${DEVICE_CODE_GRANT_TYPE} is supported here.` } as const;
  }
  return { error: 'invalid_request', error_description: `Invalid token request: ${request.validationError?.message ?? 'bad body'}.` } as const;
}

/**
 * Bodies that cannot be parsed at all (bad JSON, empty) are 400s from Fastify itself: answer them in OAuth
 * form too, so this endpoint's 400s always carry `error`. Everything else goes on to problem details.
 */
function oauthClientErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.statusCode !== 400 || error instanceof PublicError) throw error;
  reply
    .code(400)
    .headers(NO_STORE)
    .send({ error: 'invalid_request', error_description: `Invalid token request: ${error.message}` });
}

/**
 * A refused device authorization request (400) as a problem detail with the OAuth members its clients read
 * (RFC 8628 §3.2 points to RFC 6749 §5.2). Everything else goes on to the app's problem details.
 */
function oauthAuthorizationErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error instanceof PublicError ? error.status : error.statusCode;
  if (status !== 400) throw error;
  const detail = error.validation ? validationDetail(error) : error.message;
  const code = error instanceof InvalidScopeError ? 'invalid_scope' : 'invalid_request';
  sendProblem(reply, 400, detail, {}, { error: code, error_description: detail });
}

/** Far more parameters than any request of these routes carries (RFC 8628 defines three at most). */
export const MAX_FORM_PARAMETERS = 16;

/**
 * `application/x-www-form-urlencoded` to an object. A parameter without a value is left out, as if not sent
 * (RFC 6749 §3.1, §3.2). A repeated parameter becomes an array, so the schema refuses it (parameters must
 * not repeat). `Object.fromEntries` defines own properties, so
 * a parameter named `__proto__` is just an unknown field. More than {@link MAX_FORM_PARAMETERS} parameters
 * are a client error (status 400), refused before any is collected.
 */
export function parseForm(body: string): Record<string, string | string[]> {
  const params = new URLSearchParams(body);
  if (params.size > MAX_FORM_PARAMETERS) {
    throw Object.assign(new Error(`a form body has at most ${MAX_FORM_PARAMETERS} parameters`), { statusCode: 400 });
  }
  const fields = new Map<string, string[]>();
  for (const [key, value] of params) {
    if (value === '') continue;
    const values = fields.get(key);
    if (values) values.push(value);
    else fields.set(key, [value]);
  }
  return Object.fromEntries([...fields].map(([key, values]) => [key, values.length === 1 ? (values[0] ?? '') : values]));
}
