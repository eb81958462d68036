import type { onRequestHookHandler, RouteOptions } from 'fastify';

/**
 * Appends `hook` to the route's own onRequest hooks, from an `onRoute` hook. Route hooks run after the
 * global ones, in the order plugins add them; a plugin that attaches per route knows the route's
 * configuration when it is registered instead of looking it up on every request.
 */
export function appendOnRequest(route: Pick<RouteOptions, 'onRequest'>, hook: onRequestHookHandler): void {
  const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
  route.onRequest = [...existing, hook];
}
