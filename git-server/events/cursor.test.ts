import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { deliveredSeq } from '../../src/repo-maintenance/events-cursor.ts';
import { eventsCursorKey } from '../../src/repo-store/layout.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { cursorCounts, moveCursor, readCursor } from './cursor.ts';

const path = parseRepoPath('acme/site');
const key = eventsCursorKey(path);
const now = new Date('2030-01-01T00:00:00Z');

describe('the events cursor', () => {
  it('is created once, then moved by compare-and-swap, in the shape log retention reads', async () => {
    const store = new MemoryObjectStore();
    expect(await readCursor(store, key)).toBeUndefined();
    const first = await moveCursor(store, key, undefined, { seq: 3, repoId: 'r1', now });
    expect(first).toMatchObject({ seq: 3, repoId: 'r1' });
    const stored = await store.get(key);
    expect(JSON.parse(Buffer.from(stored?.kind === 'object' ? stored.body : new Uint8Array()).toString())).toEqual({
      schema: 1,
      published_seq: '3',
      updated_at: '2030-01-01T00:00:00.000Z',
      repo_id: 'r1',
    });
    expect(await deliveredSeq(store, path)).toBe(3);
    const second = await moveCursor(store, key, first, { seq: 7, repoId: 'r1', now });
    expect(second?.seq).toBe(7);
    expect(await readCursor(store, key)).toEqual(second);
  });

  it('never moves back: a bridge that lost the race to a cursor at or past its seq leaves it', async () => {
    const store = new MemoryObjectStore();
    const start = await moveCursor(store, key, undefined, { seq: 1, repoId: 'r1', now });
    // Both bridges read seq 1; one delivered up to 10, the other only up to 5.
    await moveCursor(store, key, start, { seq: 10, repoId: 'r1', now });
    const slower = await moveCursor(store, key, start, { seq: 5, repoId: 'r1', now });
    expect(slower?.seq).toBe(10);
    expect((await readCursor(store, key))?.seq).toBe(10);
  });

  it("never swaps its own incarnation's cursor back, even from the etag it was read with", async () => {
    const store = new MemoryObjectStore();
    const at10 = await moveCursor(store, key, undefined, { seq: 10, repoId: 'r1', now });
    expect(await moveCursor(store, key, at10, { seq: 4, repoId: 'r1', now })).toEqual(at10);
    expect((await readCursor(store, key))?.seq).toBe(10);
  });

  it('moves past a cursor behind its seq that another bridge wrote meanwhile (it delivered that range too)', async () => {
    const store = new MemoryObjectStore();
    const start = await moveCursor(store, key, undefined, { seq: 1, repoId: 'r1', now });
    await moveCursor(store, key, start, { seq: 4, repoId: 'r1', now });
    expect((await moveCursor(store, key, start, { seq: 9, repoId: 'r1', now }))?.seq).toBe(9);
    // Two bridges creating the first cursor: one creates, the other swaps from it.
    const fresh = new MemoryObjectStore();
    const [a, b] = await Promise.all([moveCursor(fresh, key, undefined, { seq: 2, repoId: 'r1', now }), moveCursor(fresh, key, undefined, { seq: 6, repoId: 'r1', now })]);
    expect([2, 6]).toContain(a?.seq);
    expect(b?.seq).toBe(6);
    expect((await readCursor(fresh, key))?.seq).toBe(6);
  });

  it('counts only for its incarnation (one without it only up to the head); replaces a leftover, stops at a newer incarnation', async () => {
    const store = new MemoryObjectStore();
    const leftover = await moveCursor(store, key, undefined, { seq: 50, repoId: 'old', now });
    expect(cursorCounts(leftover, 'new', 100)).toBe(false);
    // Ahead of the head only when that head was read before another bridge moved it: caught up.
    expect(cursorCounts(leftover, 'old', 49)).toBe(true);
    expect(cursorCounts(leftover, 'old', 50)).toBe(true);
    expect(cursorCounts({ seq: 5, repoId: undefined, etag: 'x' }, 'any', 5)).toBe(true);
    expect(cursorCounts({ seq: 6, repoId: undefined, etag: 'x' }, 'any', 5)).toBe(false);
    const replaced = await moveCursor(store, key, leftover, { seq: 2, repoId: 'new', now });
    expect(replaced).toMatchObject({ seq: 2, repoId: 'new' });
    // A bridge still working for 'old' finds the new incarnation's cursor: it writes nothing.
    expect(await moveCursor(store, key, leftover, { seq: 60, repoId: 'old', now })).toBeUndefined();
    expect((await readCursor(store, key))?.repoId).toBe('new');
  });
});
