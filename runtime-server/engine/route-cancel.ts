import type { Route, SettledRoute } from './entry-proxy.ts';

/**
 * Lets go of one request waiting through a chain of pending routes (its deploy, its app's first preparation, then
 * its project's turn) when its client leaves, whichever link it waits in by then: a held request whose client has
 * gone must not stay counted as waiting, or its project's wait would cut the turn holder's requests short.
 */
export class RouteCancel {
  #canceled = false;
  #current: (() => void) | undefined;

  /** The client left: ends the wait it is in now, and any it enters after. */
  readonly cancel = (): void => {
    this.#canceled = true;
    this.#current?.();
  };

  /** Waits for `route`, passing a cancel (made before or during the wait) on to it. */
  follow(route: Route): Promise<SettledRoute> {
    if (!('pending' in route)) return Promise.resolve(route);
    if (route.cancel && route.cancel !== this.cancel) {
      this.#current = route.cancel;
      if (this.#canceled) route.cancel();
    }
    return route.pending;
  }
}
