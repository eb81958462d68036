import { Type } from 'typebox';

/** RFC 9457 problem details, the body of every error response. */
export const Problem = Type.Object(
  {
    title: Type.String({ description: 'Short summary of the status code, e.g. Not Found.' }),
    status: Type.Integer({ description: 'The HTTP status code, repeated.' }),
    detail: Type.String({ description: 'What went wrong with this request, in words a person can act on.' }),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);

const descriptions: Record<number, string> = {
  400: 'The request is invalid; `detail` names the offending field.',
  401: 'Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`).',
  403: 'The token lacks the scope this route needs, or the project is not one of the caller’s.',
  404: 'No such resource.',
  408: 'The body arrived too slowly, or took too long; `detail` says which. The connection is closed.',
  409: 'Conflicts with the current state; `detail` says with what.',
  413: 'The body is larger than this route accepts; `detail` gives the limit.',
  415: 'The body’s content type is not one this route accepts.',
  429: 'Too many requests; retry after `Retry-After` seconds.',
  431: 'The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers).',
  500: 'The server failed; nothing internal is disclosed.',
  503: 'A dependency is unavailable; retry after `Retry-After` seconds.',
};

/** Response schemas for the given error statuses, for a route's `schema.response`, as problem+json. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  for (const status of statuses) {
    responses[status] = {
      description: descriptions[status] ?? 'Error.',
      content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
    };
  }
  return responses;
}

/**
 * The errors a route can answer with, derived from its shape so no route forgets one: every route can
 * fail (500); authenticated ones answer 401, 403 and 429; anything with parameters or a body can be invalid
 * (400); a route that reads bodies (any method but GET and HEAD, whether it wants one or not) can be sent
 * one too large (413) or of the wrong type (415); any request can come with a URL and headers too large (431).
 */
export function implicitErrorStatuses(route: { authenticated: boolean; hasInput: boolean; readsBody: boolean }): number[] {
  return [...(route.hasInput ? [400] : []), ...(route.authenticated ? [401, 403, 429] : []), ...(route.readsBody ? [413, 415] : []), 431, 500];
}

/** Errors any authenticated route can answer with. */
export const authenticatedErrors = [400, 401, 403, 429, 500] as const;
