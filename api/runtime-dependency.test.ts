import { describe, expect, it } from 'vitest';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import type { KubeObject } from '../src/kube/index.ts';
import { RuntimeReplicaView, type ReplicaLease, type ReplicaSource } from '../src/platform/runtime-replicas.ts';
import { runtimeDependency } from './runtime-dependency.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');

/** The watch caches' contents, as the view reads them. */
class Cache<T extends KubeObject> implements ReplicaSource<T> {
  readonly #objects = new Map<string, T>();
  upsert(obj: T): void {
    this.#objects.set(`${obj.metadata?.namespace}/${obj.metadata?.name}`, obj);
  }
  get = (key: string) => this.#objects.get(key);
  list = () => [...this.#objects.values()];
  onChange = () => () => {};
  hasSynced = () => true;
  waitForSync = async () => {};
}

function view(replicas: Array<{ name: string; ready: boolean; takesTraffic?: boolean; renewedMsAgo?: number }>): RuntimeReplicaView {
  const objects = new Cache<RuntimeReplica>();
  const leases = new Cache<ReplicaLease>();
  for (const r of replicas) {
    objects.upsert({ metadata: { namespace: 'cw', name: r.name }, spec: { ready: r.ready, ...(r.takesTraffic === undefined ? {} : { takesTraffic: r.takesTraffic }) } });
    if (r.renewedMsAgo !== undefined) {
      const renewTime = new Date(t0 - r.renewedMsAgo).toISOString();
      leases.upsert({ metadata: { namespace: 'cw', name: r.name }, spec: { holderIdentity: r.name, leaseDurationSeconds: 40, renewTime } });
    }
  }
  return new RuntimeReplicaView(objects, leases);
}

const check = (v: RuntimeReplicaView) => runtimeDependency(v, () => t0).check(AbortSignal.timeout(1_000));

describe('runtimeDependency', () => {
  it('passes while any replica is live and ready, however many are starting or gone', async () => {
    await expect(check(view([{ name: 'a', ready: true, renewedMsAgo: 5_000 }]))).resolves.toBeUndefined();
    await expect(
      check(
        view([
          { name: 'a', ready: false, renewedMsAgo: 0 },
          { name: 'b', ready: true, renewedMsAgo: 39_000 },
          { name: 'c', ready: true, renewedMsAgo: 60_000 },
        ]),
      ),
    ).resolves.toBeUndefined();
  });

  it('passes for a replica that takes traffic while it goes through its first list (not ready yet)', async () => {
    await expect(check(view([{ name: 'a', ready: false, takesTraffic: true, renewedMsAgo: 0 }]))).resolves.toBeUndefined();
    await expect(check(view([{ name: 'a', ready: false, takesTraffic: false, renewedMsAgo: 0 }]))).rejects.toThrow(/takes traffic/);
  });

  it('fails when no replica is live and ready: none, starting, expired or without a lease', async () => {
    await expect(check(view([]))).rejects.toThrow(/no cw-runtime replica/);
    await expect(check(view([{ name: 'a', ready: false, renewedMsAgo: 0 }]))).rejects.toThrow();
    await expect(check(view([{ name: 'a', ready: true, renewedMsAgo: 40_000 }]))).rejects.toThrow();
    await expect(check(view([{ name: 'a', ready: true }]))).rejects.toThrow();
  });
});
