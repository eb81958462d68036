import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { ForwardingObjectStore } from '../../../src/object-store/testing/forwarding-object-store.ts';
import { appArtifactPrefix, artifactKey } from '../../../src/platform/artifact-keys.ts';
import { deleteAppArtifacts } from './artifact-teardown.ts';

async function keys(store: MemoryObjectStore): Promise<string[]> {
  return (await store.list('')).items.map((i) => i.key);
}

async function seeded(): Promise<MemoryObjectStore> {
  const store = new MemoryObjectStore();
  for (let i = 0; i < 20; i++) await store.put(artifactKey('p', 'web', `b-${i}`), new Uint8Array([i]));
  await store.put(artifactKey('p', 'web-2', 'b-x'), new Uint8Array([1])); // another app whose id starts alike
  await store.put(artifactKey('q', 'web', 'b-y'), new Uint8Array([1])); // the same app id in another project
  return store;
}

/** Fails every delete after the first `allowed`, as a store going away mid-teardown (or the process dying). */
class FailingDeletes extends ForwardingObjectStore {
  #allowed: number;
  constructor(inner: MemoryObjectStore, allowed: number) {
    super(inner);
    this.#allowed = allowed;
  }
  override async delete(key: string): Promise<void> {
    if (this.#allowed-- <= 0) throw new Error('object store unreachable');
    return super.delete(key);
  }
}

describe('deleteAppArtifacts', () => {
  it("deletes every artifact of the app and no other app's", async () => {
    const store = await seeded();
    expect(await deleteAppArtifacts(store, 'p', 'web')).toBe(20);
    expect(await keys(store)).toEqual([artifactKey('p', 'web-2', 'b-x'), artifactKey('q', 'web', 'b-y')].sort());
  });

  it('finishes on the next run what a run that failed part way left', async () => {
    const store = await seeded();
    await expect(deleteAppArtifacts(new FailingDeletes(store, 5), 'p', 'web')).rejects.toThrow('object store unreachable');
    expect((await store.list(appArtifactPrefix('p', 'web'))).items).toHaveLength(15);
    expect(await deleteAppArtifacts(store, 'p', 'web')).toBe(15);
    expect((await store.list('apps/p/web/')).items).toEqual([]);
  });

  it('answers 0 when there is nothing to delete', async () => {
    expect(await deleteAppArtifacts(new MemoryObjectStore(), 'p', 'web')).toBe(0);
  });
});
