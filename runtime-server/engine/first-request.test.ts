import { describe, expect, it } from 'vitest';
import { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import { silentRuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { Route, SettledRoute } from './entry-proxy.ts';
import { firstRequest, type FirstRequestHost } from './first-request.ts';
import { OnDemand } from './on-demand.ts';
import type { AppDeployment } from './ports.ts';
import { PreparationFailures } from './preparation-failures.ts';
import { RouteCancel } from './route-cancel.ts';
import type { Upstream } from './upstream.ts';

const upstream = {} as Upstream;
const served: Route = { upstream, app: 'p/web' };

/** A host whose pass serves the app (or its fallback, when `serve` says so) or fails as `serve` says, counting what it was asked. */
function host(serve: () => Promise<void | { fellBack: true; failure?: unknown }>, options: { timeoutMs?: number; fallback?: boolean } = {}) {
  let app: AppDeployment = { project: 'p', appId: 'web', buildId: 'b1', env: {}, hostnames: [] };
  const calls = { unpacked: 0, served: 0, refused: 0, failed: 0, loaded: 0 };
  const h: FirstRequestHost = {
    onDemand: new OnDemand({ firstRequestTimeoutMs: options.timeoutMs ?? 1000 }),
    failures: new PreparationFailures(),
    log: silentRuntimeLogger,
    retryAfter: '1',
    desired: () => app,
    unpack: async () => void calls.unpacked++,
    hasFallback: () => options.fallback ?? false,
    serve: async () => {
      calls.served++;
      return (await serve()) ?? { fellBack: false };
    },
    refused: () => void calls.refused++,
    failed: () => void calls.failed++,
    loaded: () => void calls.loaded++,
  };
  return { h, calls, redeploy: (buildId: string) => (app = { ...app, buildId }), remove: () => (h.desired = () => undefined), again: () => (app = { ...app }) };
}

describe('firstRequest', () => {
  it('routes the request once its app is prepared, with one preparation for requests that come meanwhile', async () => {
    const { h, calls } = host(async () => {});
    const routes = await Promise.all([1, 2, 3].map(() => firstRequest(h, 'p/web', () => served)));
    expect(routes).toEqual([served, served, served]);
    expect(calls).toMatchObject({ unpacked: 1, served: 1, refused: 0, loaded: 1, failed: 0 });
  });

  it('answers 503 AppPreparing past its wait, while the preparation goes on', async () => {
    let finish: () => void = () => {};
    const { h, calls } = host(() => new Promise<void>((resolve) => (finish = resolve)), { timeoutMs: 20 });
    const route = await firstRequest(h, 'p/web', () => served);
    expect(route.refusal).toMatchObject({ status: 503, reason: 'AppPreparing', detail: 'The app is being prepared on this replica; retry shortly.', retryAfter: '1' });
    expect(calls.refused).toBe(1);
    finish();
    await h.onDemand.first('p/web', async () => {}); // the preparation under way, settled
  });

  it('tries a passing failure again on the next request', async () => {
    let fail = true;
    const { h, calls } = host(async () => {
      if (fail) throw new Error('bucket unreachable');
    });
    expect((await firstRequest(h, 'p/web', () => served)).refusal).toMatchObject({ reason: 'AppPreparing', detail: 'The app could not be prepared on this replica; retry shortly.' });
    fail = false;
    expect(await firstRequest(h, 'p/web', () => served)).toBe(served);
    expect(calls).toMatchObject({ served: 2, failed: 1 });
  });

  it('remembers a build that cannot be served for its deployment: BuildFailed at once, until a new deployment', async () => {
    let ok = false;
    const { h, calls, redeploy } = host(async () => {
      if (!ok) throw new BuildLoadError('b1', 'SyntaxError');
    });
    for (let i = 0; i < 3; i++) expect((await firstRequest(h, 'p/web', () => served)).refusal).toMatchObject({ status: 503, reason: 'BuildFailed' });
    expect(calls).toMatchObject({ served: 1, failed: 1, refused: 3 });
    ok = true;
    redeploy('b2');
    expect(await firstRequest(h, 'p/web', () => served)).toBe(served);
    expect(calls.served).toBe(2);
  });

  it('routes to the fallback of a deployment that cannot be served, remembering the failure, and prepares it again once let go', async () => {
    const refused = new BuildLoadError('b1', 'SyntaxError');
    let answer: { fellBack: true; failure?: unknown } = { fellBack: true, failure: refused };
    const { h, calls } = host(async () => answer, { fallback: true });
    expect(await firstRequest(h, 'p/web', () => served)).toBe(served);
    expect(h.failures.of('p/web', h.desired('p/web'))?.error).toBe(refused);
    expect(calls).toMatchObject({ served: 1, failed: 1, refused: 0 });
    // Let go since: the refusal is known, so the pass serves the fallback without trying the deployment again.
    h.onDemand.forget('p/web');
    answer = { fellBack: true };
    expect(await firstRequest(h, 'p/web', () => served)).toBe(served);
    expect(h.failures.of('p/web', h.desired('p/web'))?.error).toBe(refused);
    expect(calls).toMatchObject({ served: 2, failed: 1, refused: 0 });
  });

  it('keeps the failure of a deployment deployed again unchanged while it was being prepared (a new object, the same deployment)', async () => {
    let deployAgain: () => void = () => {};
    const { h, calls, again } = host(async () => {
      deployAgain();
      throw new BuildLoadError('b1', 'SyntaxError');
    });
    deployAgain = () => void again();
    expect((await firstRequest(h, 'p/web', () => served)).refusal).toMatchObject({ status: 503, reason: 'BuildFailed' });
    deployAgain = () => {};
    again();
    expect((await firstRequest(h, 'p/web', () => served)).refusal).toMatchObject({ status: 503, reason: 'BuildFailed' });
    expect(calls).toMatchObject({ served: 1, failed: 1 });
  });

  it('keeps no failure of a deployment replaced or removed while it was being prepared', async () => {
    for (const change of ['redeploy', 'remove'] as const) {
      let changed: () => void = () => {};
      const { h, calls, redeploy, remove } = host(async () => {
        changed();
        throw new BuildLoadError('b1', 'SyntaxError');
      });
      changed = change === 'redeploy' ? () => void redeploy('b2') : () => void remove();
      await firstRequest(h, 'p/web', () => served);
      expect([change, calls.failed, h.failures.of('p/web', { project: 'p', appId: 'web', buildId: 'b1', env: {}, hostnames: [] })]).toEqual([change, 0, undefined]);
    }
  });

  it("lets a request held for its project's turn after the preparation go when its client left during it", async () => {
    let prepared: () => void = () => {};
    let preparing: () => void = () => {};
    const started = new Promise<void>((resolve) => (preparing = resolve));
    const { h } = host(() => new Promise<void>((resolve) => ((prepared = resolve), preparing())));
    // What the engine answers once the app is prepared but its project's turn is another's: a held request.
    let canceled = false;
    const turn: SettledRoute = { refusal: { status: 503, title: 'Service Unavailable', detail: 'held', reason: 'Probation' } };
    let letGo: (route: SettledRoute) => void = () => {};
    const held: Route = { pending: new Promise((resolve) => (letGo = resolve)), cancel: () => ((canceled = true), letGo(turn)) };
    const chain = new RouteCancel();
    const route = firstRequest(h, 'p/web', () => held, chain);
    await started;
    chain.cancel(); // the client leaves while its app is prepared
    prepared();
    expect(await route).toBe(turn);
    expect(canceled).toBe(true);
  });
});
