import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { appArtifactPrefix, artifactKey } from '../../../src/platform/artifact-keys.ts';
import { artifactsStoredBefore, OrphanScans } from './orphaned-artifacts.ts';

describe('OrphanScans', () => {
  it('lists an app first at a moment drawn within the interval, then once an interval', () => {
    const scans = new OrphanScans(1000, () => 0.25);
    expect(scans.due('p/a', 0)).toBe(false); // first seen: due at 250
    expect(scans.due('p/a', 249)).toBe(false);
    expect(scans.due('p/a', 250)).toBe(true);
    expect(scans.due('p/a', 1249)).toBe(false);
    expect(scans.due('p/a', 1250)).toBe(true);
    scans.forget('p/a');
    expect(scans.due('p/a', 5000)).toBe(false); // seen anew
  });
});

describe('artifactsStoredBefore', () => {
  it("answers the build ids of the app's artifacts written before the time, not another app's or other objects", async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const store = new MemoryObjectStore({ now: () => now });
    await store.put(artifactKey('p', 'a', 'b-old'), new Uint8Array([1]));
    await store.put(artifactKey('p', 'a-2', 'b-other-app'), new Uint8Array([1]));
    await store.put(`${appArtifactPrefix('p', 'a')}nested/b-x.tar.zst`, new Uint8Array([1]));
    now = new Date('2026-01-01T02:00:00Z');
    await store.put(artifactKey('p', 'a', 'b-new'), new Uint8Array([1]));
    expect(await artifactsStoredBefore(store, 'p', 'a', Date.parse('2026-01-01T01:00:00Z'))).toEqual(['b-old']);
  });
});
