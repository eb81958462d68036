// cw-runtime scales like any Deployment: replicas started with the same configuration as the first (what a
// scale-up does) are found by the operator through their RuntimeReplica and start serving with nobody told
// their address; one stopped gracefully stops counting at once, one killed with SIGKILL once its Lease
// expires (3 s here, 40 s by default). Traffic goes through a round-robin proxy standing in for the Service,
// and the app answers through it throughout; the RuntimeApp stays Ready and its status counts the replicas.
import { reportOf } from './harness/replica-report.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { findCondition } from '../src/conditions/index.ts';
import { createInformer, LEASES, loadKubeConnection, objectClient, type Informer, type KubeObject } from '../src/kube/index.ts';
import { RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { killHard, type Service } from './harness/process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './harness/round-robin-proxy.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
/** Every replica's environment: the same for all, as a Deployment's pods; a short lease keeps the test fast. */
const REPLICA_ENV = { CW_RUNTIME_LEASE_DURATION_SECONDS: '3' };
const running: Service[] = [];
let api: ApiServer | undefined;
let member: MemberAccount;
let proxy: RoundRobinProxy | undefined;
let appInformer: Informer<RuntimeApp> | undefined;
let first: Runtime;

afterAll(async () => {
  appInformer?.stop();
  await proxy?.close();
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
});

/** The operator's CW_RUNTIME_UNAVAILABLE_GRACE here: short, as its default (30 s) would only slow the test down. */
const UNAVAILABLE_GRACE_MS = 3000;

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'scale');
  await createProjectNamespace(kubeconfig, member.project);
  // The project's namespace doubles as the platform's namespace here: replicas report where the operator looks.
  const started = await Promise.all([
    startRuntime('cw-runtime-scale-a', member.project, running, REPLICA_ENV),
    startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, POD_NAMESPACE: member.project } }),
  ]);
  [first, api] = started;
  await startOperator(member.project, running, { CW_RUNTIME_UNAVAILABLE_GRACE: `${UNAVAILABLE_GRACE_MS}ms` });
  proxy = await startRoundRobinProxy([first.port]);
}, 120_000);

async function deploy(name: string, body: string): Promise<void> {
  const headers = { authorization: `Bearer ${member.token}` };
  const base = `${api!.url}/v1/projects/${member.project}/apps`;
  const created = await fetch(base, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(created.status).toBe(201);
  const artifact = packWorker(`export default { fetch() { return new Response(${JSON.stringify(body)}); } };\n`);
  const deployed = await fetch(`${base}/${name}/deployments`, { method: 'POST', headers: { ...headers, 'content-type': 'application/octet-stream' }, body: artifact });
  expect(deployed.status, await deployed.clone().text()).toBe(200);
}

describe('cw-runtime scaled out and in', () => {
  it('finds new replicas by their reports, serves through every change, and forgets stopped and killed ones', { timeout: 180_000 }, async () => {
    const ns = member.project;
    const host = `hello.${ns}.${BASE_DOMAIN}`;
    const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
    const replicas = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
    const leases = objectClient<KubeObject>(conn, LEASES);
    const app = () => apps.get(ns, 'hello');
    // Every replica the operator counts serves the current spec (how many is not counted on the app: docs/scale.md).
    const readyNow = (a: RuntimeApp | undefined) => findCondition(a?.status?.conditions, 'Ready')?.status === 'True' && a?.status?.observedGeneration === a?.metadata?.generation;

    await deploy('hello', 'Hello from every replica');
    await eventually('Ready, served by one replica', app, readyNow);

    // From now on, every status the operator writes keeps Ready=True; and the entry point keeps answering.
    const notReady: string[] = [];
    appInformer = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { namespace: ns });
    appInformer.onChange((a) => {
      const ready = findCondition(a.status?.conditions, 'Ready');
      if (a.metadata?.name === 'hello' && ready?.status !== 'True') notReady.push(`${ready?.reason}: ${ready?.message}`);
    });
    appInformer.start();
    await appInformer.waitForSync(AbortSignal.timeout(10_000));
    const failures: string[] = [];
    let answered = 0;
    let loading = true;
    /** The step under way, named in a failure so it says when it happened. */
    let step = 'scaling out';
    const load = (async () => {
      while (loading) {
        const res = await send(proxy!.port, host).catch((err: unknown) => ({ status: 0, body: String(err) }));
        if (res.status === 200 && res.body === 'Hello from every replica') answered++;
        else failures.push(`${step}: ${res.status} ${res.body}`);
        await new Promise((resolve) => setTimeout(resolve, 10)); // pacing, not synchronisation
      }
    })();

    // Scale to three: two more processes with the first one's configuration. Nobody tells anyone their address.
    const [second, third] = await Promise.all([startRuntime('cw-runtime-scale-b', ns, running, REPLICA_ENV), startRuntime('cw-runtime-scale-c', ns, running, REPLICA_ENV)]);
    proxy!.backends = [first.port, second.port, third.port];
    for (const replica of [second, third]) expect(await send(replica.port, host)).toMatchObject({ status: 200, body: 'Hello from every replica' });
    // Each new replica's reports count (ready) and say it serves the app's spec: what the operator counts.
    const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
    const before = await app();
    const generation = before?.metadata?.generation;
    for (const name of [second.name, third.name]) {
      await eventually(
        `${name} counts, serving the app's spec`,
        async () => [await replicas.get(ns, name), reportOf(await reports.get(ns, replicaReportName(name, ns)), await app(), before?.metadata?.resourceVersion)] as const,
        ([replica, report]) => replica?.spec.ready === true && report?.servedGeneration === generation,
      );
    }
    await eventually('Ready, served by three replicas', app, readyNow);
    expect((await replicas.list(ns)).items.map((r) => r.metadata?.name).sort()).toEqual(['cw-runtime-scale-a', 'cw-runtime-scale-b', 'cw-runtime-scale-c']);

    // Scale in, gracefully: the Service drops the pod, which deletes its report and lease as it stops.
    step = 'scaling in';
    proxy!.backends = [first.port, third.port];
    await proxy!.drained(second.port);
    await second.service.stop();
    expect(await replicas.get(ns, second.name)).toBeUndefined();
    expect(await leases.get(ns, second.name)).toBeUndefined();
    await eventually('Ready, served by two replicas', app, readyNow);

    // A crash: SIGKILL, nothing cleaned up. Its lease expires, the operator removes its objects, it stops counting.
    // A request inside a process when it is killed is lost whatever the design, so it is killed between two of
    // its requests; then it stays among the proxy's backends (the Service has not noticed yet): connections to
    // it are refused and go to the others.
    step = 'killing a replica';
    proxy!.backends = [first.port];
    await proxy!.drained(third.port);
    await killHard(third.service);
    step = 'a replica killed';
    proxy!.backends = [first.port, third.port];
    const killedAt = performance.now();
    await eventually(
      'the killed replica forgotten',
      async () => [await replicas.get(ns, third.name), await leases.get(ns, third.name)],
      ([r, l]) => !r && !l,
      30_000,
    );
    await eventually('Ready, served by one replica', app, readyNow);
    const forgottenMs = performance.now() - killedAt;
    proxy!.backends = [first.port];

    loading = false;
    await load;
    expect(failures, `the proxy cut off: ${proxy!.cutOff.join('; ') || 'nobody'}`).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect(notReady).toEqual([]);
    // Within the lease (3 s) and a little: a requeue at the expiry, not a poll.
    expect(forgottenMs).toBeLessThan(10_000);
    process.stdout.write(`runtime-scale: ${answered} requests answered through the proxy; a killed replica forgotten after ${Math.round(forgottenMs)} ms (lease 3 s)\n`);

    // The API reports the runtime up while a replica is; the last one stopping takes the runtime away, and the
    // API stays ready (its other routes still serve) while saying so.
    const runtimeEngine = async () => {
      const res = await fetch(`${api!.url}/readyz`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { dependencies: { name: string; up: boolean | null }[] }).dependencies.find((d) => d.name === 'runtime engine')?.up;
    };
    await eventually('the runtime reported up', runtimeEngine, (up) => up === true);
    // From when it is asked to stop: its first step deletes its RuntimeReplica (the operator notices then), and
    // the process may take a while longer to end, so its exit is later than the grace's start.
    const lastStoppedAt = performance.now();
    await first.service.stop();
    // The apps keep what they said for the grace (a replica could be restarting), then say the runtime is gone.
    await eventually('RuntimeUnavailable with no replica', app, (a) => findCondition(a?.status?.conditions, 'Ready')?.reason === 'RuntimeUnavailable');
    expect(performance.now() - lastStoppedAt).toBeGreaterThanOrEqual(UNAVAILABLE_GRACE_MS - 100);
    await eventually('the runtime reported down', runtimeEngine, (up) => up === false);
  });
});
