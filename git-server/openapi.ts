// cw-git's OpenAPI 3.1 description at `/openapi.json` and its interactive reference at `/docs` (assets served from
// the package: it works offline). Registered before every route so all are described: the JSON API from its TypeBox
// schemas; git smart HTTP, LFS and the service routes, which validate nothing through Fastify, from the table below.
// Both are public, as `/healthz` is: they describe routes, never data (docs/repository-service.md).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBodySchema } from './api/schemas.ts';
import { GIT_SCOPES } from './auth/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The name the reference and discovery give the route's trailing `*` parameter. Default `rest`. */
    wildcard?: string;
  }
}

const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBodySchema } } });
const AUTH_ERRORS = {
  401: errorAnswer('No token, or one that is not valid (`unauthenticated`).'),
  403: errorAnswer('The token lacks the scope (`forbidden`), or a browser origin not allowed (`origin_not_allowed`).'),
  503: errorAnswer('The object store cannot be reached (`store_unavailable`, `retryable: true`, `Retry-After`), or the instance is draining.'),
};
/** What any request can be refused with before its route runs: its size, or input its schema refuses. */
const REQUEST_ERRORS = {
  400: errorAnswer('A parameter, query or body its schema refuses (`invalid_request`); `message` names it.'),
  414: errorAnswer('A path parameter longer than the router accepts (`uri_too_long`).'),
  431: errorAnswer('The request line and headers together are larger than the server accepts (`headers_too_large`).'),
};

/** The version of the HTTP interface the document describes. */
export const GIT_API_VERSION = '0.1.0';

/** Summaries of the routes that declare no schema of their own. */
const SUMMARIES: Readonly<Record<string, string>> = {
  'GET /healthz': 'Liveness: 200 while the process lives; never touches storage',
  'GET /readyz': 'Readiness: 200, or 503 with Retry-After while draining; never touches storage',
  'GET /metrics': 'Prometheus metrics',
  'PUT /{owner}/{repo}': 'Create a repository',
  'DELETE /{owner}/{repo}': 'Delete a repository',
  'GET /{owner}/{repo}/info/refs': 'Git smart HTTP: ref advertisement (`?service=git-upload-pack|git-receive-pack`), protocol v0 and v2',
  'POST /{owner}/{repo}/git-upload-pack': 'Git smart HTTP: clone and fetch',
  'POST /{owner}/{repo}/git-receive-pack': 'Git smart HTTP: push',
  'POST /{owner}/{repo}/info/lfs/objects/batch': 'Git LFS batch API',
  'POST /{owner}/{repo}/info/lfs/verify': 'Git LFS: verify an uploaded object',
  'GET /{owner}/{repo}/info/lfs/objects/{oid}': 'Git LFS basic transfer: download an object',
  'HEAD /{owner}/{repo}/info/lfs/objects/{oid}': 'Git LFS basic transfer: an object’s size',
  'PUT /{owner}/{repo}/info/lfs/objects/{oid}': 'Git LFS basic transfer: upload an object',
};

/** A Fastify route URL as OpenAPI writes it: `:name` → `{name}`, the trailing `*` → `{<wildcard>}`. */
export function openApiPath(url: string, wildcard = 'rest'): string {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${wildcard}}`);
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

interface JsonSchemaObject {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/**
 * The route's schema as the document shows it: the `*` parameter renamed, a parameter for each path segment the
 * schema leaves out, a summary from `SUMMARIES`, and the bearer requirement its `config` implies.
 */
function describe(route: RouteOptions, schema: Record<string, unknown> | undefined): { url: string; schema: Record<string, unknown> } {
  const config = (route.config ?? {}) as { scope?: string; public?: boolean; wildcard?: string };
  const wildcard = config.wildcard ?? 'rest';
  const url = openApiPath(route.url, wildcard);
  const params = (schema?.params ?? { type: 'object', properties: {} }) as JsonSchemaObject;
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params.properties ?? {})) properties[name === '*' ? wildcard : name] = value;
  for (const [, name] of url.matchAll(/\{([^}]+)\}/g)) properties[name as string] ??= { type: 'string' };
  const method = [route.method].flat()[0] ?? 'GET';
  const described: Record<string, unknown> = { ...schema };
  // The browser lane repeats the API's operations under `/api-browser`: described once, under `/api`.
  if (/^\/:owner\/:repo\/api-browser(\/|$)/.test(route.url)) described.hide = true;
  if (Object.keys(properties).length > 0) {
    described.params = { ...params, type: 'object', properties, required: Object.keys(properties) };
  }
  described.summary ??= SUMMARIES[`${method} ${url}`];
  if (config.public !== true) {
    described.security = [{ bearer: config.scope ? [config.scope] : [] }];
    // What any authenticated route with documented answers can also say: no or a bad token, a scope it lacks, the
    // store out of reach. Documented only: these bodies are sent by the error handler, not the route's serializer.
    if (described.response) described.response = { 401: AUTH_ERRORS[401], 403: AUTH_ERRORS[403], 503: AUTH_ERRORS[503], ...(described.response as object) };
  }
  if (described.response) {
    const validates = Object.keys(properties).length > 0 || schema?.querystring !== undefined || schema?.body !== undefined;
    described.response = { 431: REQUEST_ERRORS[431], ...(validates ? { 400: REQUEST_ERRORS[400], 414: REQUEST_ERRORS[414] } : {}), ...(described.response as object) };
  }
  return { url, schema: described };
}

/** Registers the document and the reference; call before any route. */
export async function gitOpenApi(app: FastifyInstance): Promise<void> {
  // The reference's own routes (HTML, scripts, styles) are as public as the document they show.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, public: true };
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
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
