// cw-git's OpenAPI 3.1 description at `/openapi.json` and its interactive reference at `/docs` (assets served from
// the package: it works offline). Registered before every route so all are described: the JSON API from its TypeBox
// schemas; git smart HTTP, LFS and the service routes, which validate nothing through Fastify, from
// openapi-protocol-routes.ts.
// Both are public, as `/healthz` is: they describe routes, never data (docs/repository-service.md).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { RepoParamsSchema } from './repo-api/schemas.ts';
import { GIT_SCOPES } from './auth/index.ts';
import { errorAnswer, OPTIONAL_BODY, PROTOCOL_ROUTES, RETRY_AFTER } from './openapi-protocol-routes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The name the reference and discovery give the route's trailing `*` parameter. Default `rest`. */
    wildcard?: string;
  }
}

const AUTH_ERRORS = {
  401: errorAnswer('No token, or one that is not valid (`unauthenticated`), with a Basic challenge git answers with its credential helper.', {
    'www-authenticate': Type.String({ description: '`Basic realm="cw-git"`' }),
  }),
  403: errorAnswer('The token lacks the scope (`forbidden`), or a browser origin not allowed (`origin_not_allowed`).'),
  503: errorAnswer(
    'The object store cannot be reached (`store_unavailable`, `retryable: true`, `Retry-After`), the instance is draining, it is still loading the platform’s git tokens (`unavailable`), or it is reading as many large bodies as it holds at once (`bodies_busy`, on routes taking more than 64 KiB).',
    RETRY_AFTER,
  ),
};
/** What any request can be refused with before its route runs: its size, or input its schema refuses. */
const REQUEST_ERRORS = {
  400: errorAnswer('A parameter, query or body its schema refuses (`invalid_request`); `message` names it.'),
  414: errorAnswer('A path parameter longer than the router accepts (`uri_too_long`).'),
  431: errorAnswer('The request line and headers together are larger than the server accepts (`headers_too_large`).'),
};
/** What a route whose JSON body Fastify parses also answers, before its handler runs. */
const BODY_ERRORS = {
  413: errorAnswer('The body is larger than the route accepts (`too_large`; 64 KiB unless the route says otherwise).'),
  415: errorAnswer('A body that is not JSON (`unsupported_media_type`).'),
};

/** What a route taking a JSON body over 64 KiB also answers (git-server/large-bodies.ts). */
const LARGE_BODY_ERRORS = {
  408: errorAnswer('The body did not arrive within 60 s (`request_timeout`).'),
  429: errorAnswer('The owner’s large bodies being read at once hold their share (`owner_bodies_limit`, `retryable: true`, `Retry-After`).', RETRY_AFTER),
};

/** The version of the HTTP interface the document describes. */
export const GIT_API_VERSION = '0.1.0';

/** A Fastify route URL as OpenAPI writes it: `:name` → `{name}`, the trailing `*` → `{<wildcard>}`. */
export function openApiPath(url: string, wildcard = 'rest'): string {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${wildcard}}`);
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

/** `{owner}` and `{repo}` as the JSON API's schemas state them, for the routes whose schema leaves them out. */
const REPO_PARAMS: Readonly<Record<string, unknown>> = RepoParamsSchema.properties;

interface JsonSchemaObject {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/**
 * The route's schema as the document shows it: the `*` parameter renamed, a parameter for each path segment the
 * schema leaves out, the description of a protocol route (`PROTOCOL_ROUTES`), and the bearer requirement its
 * `config` implies.
 */
function describe(route: RouteOptions, schema: Record<string, unknown> | undefined): { url: string; schema: Record<string, unknown> } {
  const config = (route.config ?? {}) as { scope?: string; public?: boolean; wildcard?: string };
  const wildcard = config.wildcard ?? 'rest';
  const url = openApiPath(route.url, wildcard);
  const method = [route.method].flat()[0] ?? 'GET';
  // A protocol route's description wins over its schema (the LFS body in the LFS media type); a schema it leaves out stays.
  const protocol = PROTOCOL_ROUTES[`${method} ${url}`];
  const described: Record<string, unknown> = { ...schema, ...protocol };
  const params = (described.params ?? { type: 'object', properties: {} }) as JsonSchemaObject;
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params.properties ?? {})) properties[name === '*' ? wildcard : name] = value;
  for (const [, name] of url.matchAll(/\{([^}]+)\}/g)) properties[name as string] ??= REPO_PARAMS[name as string] ?? { type: 'string' };
  // The browser lane repeats the API's operations under `/api-browser`: described once, under `/api`.
  if (/^\/:owner\/:repo\/api-browser(\/|$)/.test(route.url)) described.hide = true;
  if (Object.keys(properties).length > 0) {
    described.params = { ...params, type: 'object', properties, required: Object.keys(properties) };
  }
  if (config.public !== true) {
    described.security = [{ bearer: config.scope ? [config.scope] : [] }];
    // What any authenticated route with documented answers can also say: no or a bad token, a scope it lacks, the
    // store out of reach. Documented only: these bodies are sent by the error handler, not the route's serializer.
    if (described.response) described.response = { 401: AUTH_ERRORS[401], 403: AUTH_ERRORS[403], 503: AUTH_ERRORS[503], ...(described.response as object) };
  }
  if (described.response) {
    const hasParams = Object.keys(properties).length > 0;
    const validates = hasParams || described.querystring !== undefined || described.body !== undefined;
    // A body described by media type is read by the route itself (git's, LFS objects), which says what it answers.
    const parsedJson = described.body !== undefined && (described.body as { content?: unknown }).content === undefined;
    described.response = {
      431: REQUEST_ERRORS[431],
      ...(validates ? { 400: REQUEST_ERRORS[400] } : {}),
      ...(hasParams ? { 414: REQUEST_ERRORS[414] } : {}),
      ...(parsedJson ? BODY_ERRORS : {}),
      ...(parsedJson && (route.bodyLimit ?? 0) > 64 * 1024 ? LARGE_BODY_ERRORS : {}),
      ...(described.response as object),
    };
  }
  return { url, schema: described };
}

type Operation = Record<string, unknown> & { requestBody?: { required?: boolean } };

/** The operations marked `OPTIONAL_BODY` say so in OpenAPI's words: `requestBody.required: false`. */
function optionalBodies<T extends { paths?: object }>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(item)) {
      if (operation[OPTIONAL_BODY] !== true) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return doc;
}

/** Registers the document and the reference; call before any route. */
export async function gitOpenApi(app: FastifyInstance): Promise<void> {
  // The reference's own routes (HTML, scripts, styles) are as public as the document they show.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, public: true };
    // @fastify/swagger leaves out HEAD routes (Fastify adds one to each GET); a HEAD described on its own is shown.
    if (route.method === 'HEAD' && PROTOCOL_ROUTES[`HEAD ${openApiPath(route.url, route.config?.wildcard)}`]) {
      route.config = { ...route.config, swagger: { ...route.config?.swagger, exposeHeadRoute: true } };
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cloudwright repository service (cw-git)',
        version: GIT_API_VERSION,
        description:
          'Git smart HTTP, Git LFS and the repository JSON API under `/{owner}/{repo}/api` (servers) and `/{owner}/{repo}/api-browser` ' +
          '(browsers: the same operations with CORS for `server.cors_origins`). Every route but the probes and this reference ' +
          'needs `Authorization: Bearer <token>` (git clients may send it as the Basic password) holding the scope listed.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: `A cw-git access token (JWT). Scopes: ${GIT_SCOPES.join(', ')}; \`write\` implies \`read\`.` },
        },
      },
    },
    transform: ({ schema, route }) => describe(route, schema as Record<string, unknown> | undefined),
    transformObject: (document) => ('openapiObject' in document ? optionalBodies(document.openapiObject) : document.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
