// Killing cw-operator with SIGKILL in the middle of reconciling, then starting it again, converges with no
// duplicate side effects: every RuntimeApp's status is written once and no Event is recorded twice.
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { EVENTS, loadKubeConnection, objectClient, type KubeObject } from '../src/kube/index.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { freePort, startService, waitForHttp, type Service } from './harness/process.ts';
import { repoRoot, toolPath } from './harness/tools.ts';
import { watchUntil } from './harness/watch.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const events = objectClient<KubeObject & { reason?: string; count?: number; involvedObject?: { name?: string } }>(conn, EVENTS);
const running: Service[] = [];
afterAll(async () => Promise.all(running.map((s) => s.stop(2_000))));

async function startOperator(namespace: string, name: string): Promise<Service> {
  const port = await freePort();
  const service = startService({
    name,
    command: toolPath('node'),
    args: [join(repoRoot, 'bin/cw-operator.ts')],
    logPath: join(inject('stateDir'), `${name}.log`),
    env: { ...process.env, KUBECONFIG: inject('kubeconfig'), CW_OPERATOR_PORT: String(port), POD_NAMESPACE: namespace, CW_WATCH_NAMESPACE: namespace },
  });
  running.push(service);
  await waitForHttp(service, `http://127.0.0.1:${port}/healthz`, 30_000);
  return service;
}

async function createApps(namespace: string, from: number, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, i) => apps.create({ metadata: { name: `app-${from + i}`, namespace }, spec: { displayName: `app ${from + i}` } })));
}

const converged = (app: RuntimeApp) => app.status?.observedGeneration === app.metadata?.generation && app.status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'NoBuild';

describe('cw-operator killed mid-reconcile', () => {
  it('converges after a restart without duplicate status writes or events', { timeout: 120_000 }, async () => {
    const namespace = await createTestNamespace(conn, 'crash');
    const first = await startOperator(namespace, 'operator-a');
    await createApps(namespace, 0, 40);

    // Kill it while it is working through the queue, the moment a watch shows some apps done (not all).
    const done = (await watchUntil<RuntimeApp>(conn, RUNTIME_APPS, { namespace, timeoutMs: 60_000, what: 'three apps converged' }, (seen) => seen.filter(converged).length >= 3)).filter(converged);
    first.child.kill('SIGKILL');
    await first.stop();
    const before = new Map(done.map((a) => [a.metadata?.name, a]));
    expect(before.size).toBeGreaterThan(0);

    await createApps(namespace, 40, 20); // changes while no operator runs
    await startOperator(namespace, 'operator-b'); // waits out the dead leader's Lease, then reconciles

    // Waits for all to converge; on a timeout, the assertions below say which did not.
    await watchUntil<RuntimeApp>(conn, RUNTIME_APPS, { namespace, timeoutMs: 90_000, what: 'every app converged' }, (seen) => seen.length === 60 && seen.every(converged)).catch(() => undefined);
    const items = (await apps.list(namespace)).items;
    expect(items).toHaveLength(60);
    expect(items.filter((a) => !converged(a)).map((a) => a.metadata?.name)).toEqual([]);

    for (const app of items) {
      expect(app.status?.conditions?.map((c) => c.type).sort()).toEqual(['Deployed', 'Ready']);
      const earlier = before.get(app.metadata?.name);
      // Apps finished before the kill were not written again: same resourceVersion, same transition times.
      if (earlier) expect(app.metadata?.resourceVersion).toBe(earlier.metadata?.resourceVersion);
    }
    // Events are written behind the status (reconcilers do not wait for them): wait for those of the apps the second
    // operator handled, then count every app's.
    type Event = KubeObject & { reason?: string; involvedObject?: { name?: string } };
    const handled = Array.from({ length: 20 }, (_, i) => `app-${40 + i}`);
    await watchUntil<Event>(conn, EVENTS, { namespace, timeoutMs: 30_000, what: 'the NoBuild Events of the apps created while no operator ran' }, (seen) =>
      handled.every((name) => seen.some((e) => e.reason === 'NoBuild' && e.involvedObject?.name === name)),
    ).catch(() => undefined);
    const noBuildEvents = (await events.list(namespace)).items.filter((e) => e.reason === 'NoBuild');
    const perApp = new Map<string, number>();
    for (const e of noBuildEvents) perApp.set(e.involvedObject?.name ?? '', (perApp.get(e.involvedObject?.name ?? '') ?? 0) + (e.count ?? 1));
    // No app got its Event twice. An Event is commentary written after the status, so a kill between the
    // two may lose one (at most once, never duplicated); every app the second operator handled has one.
    expect([...perApp.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    for (let i = 40; i < 60; i++) expect(perApp.get(`app-${i}`), `app-${i}`).toBe(1);
  });
});
