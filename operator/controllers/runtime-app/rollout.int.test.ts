// Rollouts driven by the RuntimeApp controller against the real apiserver. Runtime replicas are played by the
// real ReplicaPublisher (what cw-runtime runs) writing RuntimeReplicas and Leases: a replica reporting the
// weight it applies and its counts per build is the controller's whole input, as in production.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutPolicy } from '../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { DEPLOYED_BUILD_ANNOTATION, DEPLOYED_BY_ANNOTATION } from '../../../src/apis/v1alpha1/activation.ts';
import { RUNTIME_REPLICA_LABEL, type RuntimeReplica } from '../../../src/apis/v1alpha1/runtime-replica.ts';
import type { RuntimeReplicaReport } from '../../../src/apis/v1alpha1/runtime-replica-report.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { createInformer, EVENTS, eventWriter, LEASES, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../../../src/platform/resources.ts';
import { RuntimeReplicaView, type ReplicaLease } from '../../../src/platform/runtime-replicas.ts';
import { servingPlan } from '../../../src/runtime-contract/releases.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { ReplicaPublisher } from '../../../runtime-server/replica-publisher.ts';
import type { ReplicaSnapshot } from '../../../runtime-server/replica-reports.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { runtimeAppController } from './controller.ts';

const conn = testConnection();
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const events = objectClient<KubeObject & { reason?: string; type?: string; message?: string; count?: number }>(conn, EVENTS);
let namespace: { name: string; remove: () => Promise<void> };
let operator: { stop: () => Promise<void>; registry: Registry } | undefined;
const publishers: ReplicaPublisher[] = [];
/** The one runtime replica: every counted replica must report an app for its steps to be applied. */
let r: Awaited<ReturnType<typeof replica>>;

/** An operator as cw-operator runs it: informers of its own, the RuntimeApp controller, an Event recorder. */
async function startOperator(): Promise<{ stop: () => Promise<void>; registry: Registry }> {
  const ns = namespace.name;
  const registry = new Registry();
  const appInformer = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { namespace: ns });
  const view = new RuntimeReplicaView(
    createInformer<RuntimeReplica>(conn, RUNTIME_REPLICAS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
    createInformer<ReplicaLease>(conn, LEASES, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
    createInformer<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS, { namespace: ns, labelSelector: RUNTIME_REPLICA_LABEL }),
  );
  const recorder = new EventRecorder({ writer: eventWriter(conn), component: 'runtimeapp-test' });
  const controller = runtimeAppController({ kube: conn, apps: appInformer, replicas: view, events: recorder, registry, log: silentLogger });
  const informers = [appInformer, view.replicas, view.leases, view.reports] as unknown as Informer<KubeObject>[];
  for (const informer of informers) informer.start();
  await controller.start();
  return {
    registry,
    stop: async () => {
      await controller.stop();
      for (const informer of informers) informer.stop();
    },
  };
}

beforeAll(async () => {
  namespace = await testNamespace(conn, 'rollout');
  operator = await startOperator();
  r = await replica('replica-1');
});

afterAll(async () => {
  await Promise.all(publishers.map((p) => p.stop().catch(() => {})));
  await operator?.stop();
  await namespace?.remove();
});

/**
 * A runtime replica serving apps as servingPlan asks, as cw-runtime does: `apply(app)` reports the plan of the
 * app as it is now (the split at its weight, or one build), with the counts given per build.
 */
async function replica(name: string) {
  let snapshot: ReplicaSnapshot = { ready: true, takesTraffic: true, apps: [] };
  const publisher = new ReplicaPublisher({ kube: conn, identity: { namespace: namespace.name, name }, leaseDurationSeconds: 40, snapshot: () => snapshot, log: silentLogger, coalesceMs: 10 });
  publishers.push(publisher);
  await publisher.start();
  return {
    async apply(appName: string, counts: { canary?: [number, number]; stable?: [number, number] } = {}): Promise<void> {
      const app = (await apps.get(namespace.name, appName)) as RuntimeApp;
      const plan = servingPlan(app);
      const generation = app.metadata?.generation ?? 0;
      const report: RuntimeAppReport = {
        namespace: namespace.name,
        app: appName,
        servingBuildId: plan.kind === 'split' ? plan.canary.buildId : plan.kind === 'single' ? plan.release.buildId : (app.spec.activeBuildId ?? ''),
        hosts: [`${appName}.p.apps.localhost`],
        servedGeneration: generation,
        observedGeneration: generation,
        ...(plan.kind === 'split'
          ? {
              rollout: {
                release: plan.canary.release,
                weight: plan.weight,
                canary: { requests: counts.canary?.[0] ?? 0, errors: counts.canary?.[1] ?? 0 },
                stable: { requests: counts.stable?.[0] ?? 0, errors: counts.stable?.[1] ?? 0 },
              },
            }
          : {}),
      };
      snapshot = { ...snapshot, apps: [...snapshot.apps.filter((r) => r.app !== appName), report] };
      publisher.changed();
    },
  };
}

const get = (name: string) => () => apps.get(namespace.name, name);
const annotate = (name: string, annotation: string, value: string) => apps.patch(namespace.name, name, { metadata: { annotations: { [annotation]: value } } }, 'merge');
const deploy = (name: string, buildId: string) => apps.patch(namespace.name, name, { spec: { activeBuildId: buildId } }, 'merge');
const condition = (type: string) => (app: RuntimeApp | undefined) => findCondition(app?.status?.conditions, type);
/** Events of the app by reason, counting repeats the recorder folded into one object. */
async function eventCounts(name: string): Promise<Record<string, number>> {
  const list = await events.list(namespace.name, { fieldSelector: `involvedObject.name=${name}` });
  const counts: Record<string, number> = {};
  for (const e of list.items) counts[`${e.reason ?? ''}: ${e.message ?? ''}`] = (counts[`${e.reason ?? ''}: ${e.message ?? ''}`] ?? 0) + (e.count ?? 1);
  return counts;
}
async function create(name: string, rollout: RolloutPolicy): Promise<void> {
  await apps.create({ metadata: { name, namespace: namespace.name }, spec: { displayName: name, activeBuildId: 'b1', rollout } });
  await eventually('the policy records the served release as stable', get(name), (a) => a?.status?.rollout?.phase === 'Succeeded' && a.status.rollout.stable.buildId === 'b1');
}

describe('rollouts by the RuntimeApp controller', () => {
  it('steps through weights as the replicas apply them, pauses, and answers promote, abort and retry', { timeout: 90_000 }, async () => {
    await create('steps', { steps: [{ weight: 10, pause: { duration: '2s' } }, { weight: 50, pause: {} }, { weight: 100 }] });
    await r.apply('steps');
    await eventually('served before any rollout', get('steps'), (a) => condition('Ready')(a)?.status === 'True');

    await deploy('steps', 'b2');
    const started = await eventually('a rollout starts at the first step', get('steps'), (a) => a?.status?.rollout?.phase === 'Progressing' && a.status.rollout.canary?.buildId === 'b2');
    expect(started?.status?.rollout).toMatchObject({ step: 0, weight: 10, stable: { buildId: 'b1' } });
    expect(condition('RolloutProgressing')(started)).toMatchObject({ status: 'True', reason: 'Progressing' });
    // The replica still serves b1 alone: not deployed, and the step waits for it (by watch).
    await eventually('not deployed until the replica splits', get('steps'), (a) => condition('Deployed')(a)?.reason === 'RollingOut');

    await r.apply('steps');
    await eventually('deployed at 10 %', get('steps'), (a) => condition('Deployed')(a)?.message === 'Builds b1 and b2 are served, 10 % of traffic on build b2.');
    await eventually('after the 2 s pause, step 2 at 50 %', get('steps'), (a) => a?.status?.rollout?.step === 1 && a.status.rollout.weight === 50, 10_000);
    await r.apply('steps');
    await eventually('paused at 50 % until a promote', get('steps'), (a) => a?.status?.rollout?.phase === 'Paused' && a.status.rollout.step === 1);

    await annotate('steps', ROLLOUT_PROMOTE_ANNOTATION, 'promote-1');
    await eventually('promoted to 100 %', get('steps'), (a) => a?.status?.rollout?.lastHandledPromote === 'promote-1' && a.status.rollout.step === 2 && a.status.rollout.weight === 100);
    await r.apply('steps');
    const done = await eventually('succeeded once 100 % is applied', get('steps'), (a) => a?.status?.rollout?.phase === 'Succeeded');
    expect(done?.status?.rollout).toMatchObject({ stable: { buildId: 'b2' }, weight: 100, step: 3 });
    expect(condition('RolloutProgressing')(done)).toMatchObject({ status: 'False', reason: 'Succeeded' });
    await r.apply('steps');
    await eventually('b2 served alone, as the spec', get('steps'), (a) => condition('Ready')(a)?.status === 'True' && a?.status?.servingBuildId === 'b2');

    // A promote with nothing to promote is echoed with why.
    await annotate('steps', ROLLOUT_PROMOTE_ANNOTATION, 'promote-2');
    const idle = await eventually('an idle promote echoed', get('steps'), (a) => a?.status?.rollout?.lastHandledPromote === 'promote-2');
    expect(idle?.status?.rollout).toMatchObject({ phase: 'Succeeded', message: 'Promote request promote-2 had nothing to promote: the rollout is Succeeded.' });

    // Abort: all traffic back on b2; the spec's b3 is not served, Ready says why.
    await deploy('steps', 'b3');
    await eventually('a rollout of b3', get('steps'), (a) => a?.status?.rollout?.phase === 'Progressing' && a.status.rollout.canary?.buildId === 'b3');
    await annotate('steps', ROLLOUT_ABORT_ANNOTATION, 'abort-1');
    const aborted = await eventually('aborted', get('steps'), (a) => a?.status?.rollout?.lastHandledAbort === 'abort-1' && a.status.rollout.phase === 'Aborted');
    expect(aborted?.status?.rollout).toMatchObject({ weight: 0, stable: { buildId: 'b2' }, canary: { buildId: 'b3' } });
    expect(condition('Ready')(aborted)).toMatchObject({ status: 'False', reason: 'RolloutAborted', message: 'Aborted on request: build b2 serves all traffic.' });
    await r.apply('steps');
    await eventually('b2 served alone again', get('steps'), (a) => condition('Deployed')(a)?.message === 'Build b2 is served, the stable release of the rollout.');

    // Re-applying the same manifest does not restart it; a retry does.
    await deploy('steps', 'b3');
    await annotate('steps', ROLLOUT_RETRY_ANNOTATION, 'retry-1');
    const retried = await eventually('retried from step 0', get('steps'), (a) => a?.status?.rollout?.lastHandledRetry === 'retry-1');
    expect(retried?.status?.rollout).toMatchObject({ phase: 'Progressing', step: 0, weight: 10, canary: { buildId: 'b3' } });

    // Setting the active build back is the rollback.
    await deploy('steps', 'b2');
    const rolledBack = await eventually('rolled back', get('steps'), (a) => a?.status?.rollout?.phase === 'Aborted');
    expect(rolledBack?.status?.rollout?.message).toMatch(/^The active release was set back to build b2/);
    await r.apply('steps');
    await eventually('b2 served as the spec', get('steps'), (a) => condition('Ready')(a)?.status === 'True');

    const seen = await eventually(
      'the Events of the rollout',
      () => eventCounts('steps'),
      (e) => Object.keys(e).some((k) => k.startsWith('RolloutAborted: The active release')),
    );
    expect(seen).toMatchObject({
      'RolloutStep: Step 1 of 3: 10 % of traffic on build b2.': 1,
      'RolloutStep: Step 2 of 3: 50 % of traffic on build b2.': 1,
      'RolloutPaused: Step 2 of 3: 50 % of traffic on build b2. Paused until a promote.': 1,
      'RolloutStep: Step 3 of 3: 100 % of traffic on build b2.': 1,
      'RolloutSucceeded: Build b2 serves all traffic.': 1,
      'RolloutAborted: Aborted on request: build b2 serves all traffic.': 1,
      'RolloutStep: Step 1 of 3: 10 % of traffic on build b3.': 2,
    });
  });

  it('aborts by itself when the new build fails its analysis', { timeout: 60_000 }, async () => {
    await create('analysed', { steps: [{ weight: 50 }], analysis: { interval: '1s', minRequests: 10, maxErrorPercent: 5 } });
    await deploy('analysed', 'b2');
    await eventually('a rollout of b2', get('analysed'), (a) => a?.status?.rollout?.phase === 'Progressing');
    await r.apply('analysed', { canary: [50, 41], stable: [50, 0] });
    const aborted = await eventually('aborted by the analysis', get('analysed'), (a) => a?.status?.rollout?.phase === 'Aborted', 10_000);
    const message = 'Analysis failed: 41 of 50 requests of build b2 failed (82 %), above the 5 % allowed. Build b1 serves all traffic.';
    expect(aborted?.status?.rollout).toMatchObject({ weight: 0, message, analysis: { failures: 1, canary: { requests: 50, errors: 41 }, stable: { requests: 50, errors: 0 } } });
    expect(condition('Ready')(aborted)).toMatchObject({ status: 'False', reason: 'RolloutAborted', message });
    await eventually(
      'a Warning Event says why',
      () => events.list(namespace.name, { fieldSelector: 'involvedObject.name=analysed,reason=RolloutAborted' }),
      (l) => l.items.some((e) => e.type === 'Warning' && e.message === message),
    );
  });

  it('an operator restarted mid-rollout resumes at the same step and weight, its pause counted from the status, without repeating Events', { timeout: 60_000 }, async () => {
    await create('restart', {
      steps: [
        { weight: 20, pause: { duration: '4s' } },
        { weight: 60, pause: {} },
      ],
    });
    await deploy('restart', 'b2');
    await eventually('a rollout of b2', get('restart'), (a) => a?.status?.rollout?.phase === 'Progressing');
    await r.apply('restart');
    await eventually('deployed at 20 %', get('restart'), (a) => condition('Deployed')(a)?.status === 'True');

    await operator?.stop();
    // Read once it stopped: an Event follows the status write that called for it, and stop() waits for that reconcile.
    const before = await eventCounts('restart');
    operator = await startOperator();
    const registry = operator.registry;
    await eventually(
      'the new operator has looked at the app',
      async () => ((await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? []).reduce((sum, v) => sum + v.value, 0),
      // One per app of the namespace, at least.
      (n) => n >= 3,
    );
    const resumed = await get('restart')();
    expect(resumed?.status?.rollout).toMatchObject({ phase: 'Progressing', step: 0, weight: 20 });
    // It found the status it would write, so it wrote nothing and recorded no Event.
    expect(await eventCounts('restart')).toEqual(before);

    // Its pause ends when the status says, on the new operator's timer: nothing else changes meanwhile.
    await eventually('step 2 at 60 %', get('restart'), (a) => a?.status?.rollout?.step === 1 && a.status.rollout.weight === 60, 15_000);
    await r.apply('restart');
    await eventually('paused at 60 %', get('restart'), (a) => a?.status?.rollout?.phase === 'Paused');
    const after = await eventually(
      'the Events after the restart',
      () => eventCounts('restart'),
      (e) => Object.keys(e).some((k) => k.startsWith('RolloutPaused')),
    );
    const rolloutOnly = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([k]) => k.startsWith('Rollout')));
    expect(rolloutOnly(after)).toEqual({
      ...rolloutOnly(before),
      'RolloutStep: Step 2 of 2: 60 % of traffic on build b2.': 1,
      'RolloutPaused: Step 2 of 2: 60 % of traffic on build b2. Paused until a promote.': 1,
    });
    expect(before).toMatchObject({ 'RolloutStep: Step 1 of 2: 20 % of traffic on build b2.': 1 });
  });

  it('records each activation in status.history: who made it, its rollout’s weights, its abort, when it was served', { timeout: 60_000 }, async () => {
    await create('history', { steps: [{ weight: 20 }, { weight: 60 }] });
    await r.apply('history');
    const first = await eventually('b1 recorded, served', get('history'), (a) => a?.status?.history?.[0]?.servedAt !== undefined);
    expect(first?.status?.history).toEqual([{ buildId: 'b1', activatedAt: expect.any(String), servedAt: expect.any(String) }]);

    // As the API deploys: who, with the spec, in one write. The replica applies each step as it comes.
    await apps.patch(namespace.name, 'history', { metadata: { annotations: { [DEPLOYED_BY_ANNOTATION]: 'user:ann', [DEPLOYED_BUILD_ANNOTATION]: 'b2' } }, spec: { activeBuildId: 'b2' } }, 'merge');
    const applyingUntil = (ok: (a: RuntimeApp | undefined) => boolean) => async () => {
      const app = await get('history')();
      if (!ok(app)) await r.apply('history');
      return app;
    };
    const served = (buildId: string) => (a: RuntimeApp | undefined) => a?.status?.history?.[0]?.buildId === buildId && a.status.history[0].servedAt !== undefined;
    const b2 = (await eventually('b2 rolled out and served', applyingUntil(served('b2')), served('b2')))?.status?.history?.[0];
    expect(b2).toMatchObject({ buildId: 'b2', by: 'user:ann', steps: [{ weight: 20 }, { weight: 60 }, { weight: 100 }] });
    expect(Date.parse(b2!.servedAt!)).toBeGreaterThanOrEqual(Date.parse(b2!.steps![2]!.at));

    // kubectl (no annotations naming b3), then an abort: recorded by nobody, never served.
    await deploy('history', 'b3');
    await eventually('a rollout of b3', get('history'), (a) => a?.status?.rollout?.phase === 'Progressing' && a.status.rollout.canary?.buildId === 'b3');
    await annotate('history', ROLLOUT_ABORT_ANNOTATION, 'abort-h');
    const b3 = (await eventually('b3 aborted', get('history'), (a) => a?.status?.history?.[0]?.abortedAt !== undefined))?.status?.history?.[0];
    expect(b3).toEqual({ buildId: 'b3', activatedAt: expect.any(String), steps: [{ weight: 20, at: expect.any(String) }], abortedAt: expect.any(String) });

    // Back to b1: a rollback, newest first, the older entries kept as they were.
    await deploy('history', 'b1');
    const after = await eventually('b1 again, served', applyingUntil(served('b1')), served('b1'));
    expect(after?.status?.history?.map((h) => [h.buildId, h.rollback ?? false])).toEqual([
      ['b1', true],
      ['b3', false],
      ['b2', false],
      ['b1', false],
    ]);
    expect(after?.status?.history?.[2]).toEqual(b2);
  });
});
