import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { entryKey, isEntryId, newEntryId, timeOfEntryId, type AuditEntry, type ResourceType } from './audit-entry.ts';
import { AuditTrail } from './audit-trail.ts';

const T0 = Date.parse('2026-11-28T12:00:00Z');

function entry(project: string, atMs: number, type: ResourceType = 'app', action = `${type}.create`): AuditEntry {
  const time = new Date(atMs);
  return {
    id: newEntryId(time),
    time: time.toISOString(),
    project_id: project,
    principal: { user_id: 'ada', token_id: 'tok-0123456789abcdef', token_name: 'laptop', kind: 'access_token' },
    action,
    resource: { type, id: 'x' },
    details: {},
    method: 'POST',
    path: `/v1/projects/${project}/apps`,
    request_id: 'req-1',
    status: 201,
  };
}

async function filled(store: MemoryObjectStore, project: string, count: number, type: (i: number) => ResourceType = () => 'app'): Promise<AuditEntry[]> {
  const trail = new AuditTrail(store);
  const entries = Array.from({ length: count }, (_, i) => entry(project, T0 + i * 1000, type(i)));
  await Promise.all(entries.map((e) => trail.record(e)));
  return entries;
}

describe('audit entry ids', () => {
  it('sort later times first and give back their time', () => {
    const early = newEntryId(new Date(T0));
    const late = newEntryId(new Date(T0 + 1));
    expect(isEntryId(early) && isEntryId(late)).toBe(true);
    expect(late < early).toBe(true);
    expect(timeOfEntryId(early).getTime()).toBe(T0);
    expect(newEntryId(new Date(T0))).not.toBe(early);
  });
});

describe('AuditTrail', () => {
  it('pages a project newest first with a cursor, only its own entries', async () => {
    const store = new MemoryObjectStore();
    const entries = await filled(store, 'acme', 7);
    await filled(store, 'acme-2', 3);
    const trail = new AuditTrail(store);
    const first = await trail.page('acme', { limit: 3 });
    expect(first.entries.map((e) => e.time)).toEqual([6, 5, 4].map((i) => entries[i]?.time));
    const second = await trail.page('acme', { limit: 3, after: first.next ?? '' });
    expect(second.entries.map((e) => e.time)).toEqual([3, 2, 1].map((i) => entries[i]?.time));
    const last = await trail.page('acme', { limit: 3, after: second.next ?? '' });
    expect(last.entries.map((e) => e.time)).toEqual([entries[0]?.time]);
    expect(last.next).toBeUndefined();
  });

  it('filters by resource type from the keys, reading only the bodies it returns', async () => {
    const store = new MemoryObjectStore();
    await filled(store, 'acme', 10, (i) => (i % 3 === 0 ? 'database' : 'app'));
    const trail = new AuditTrail(store);
    const page = await trail.page('acme', { limit: 10, resourceType: 'database' });
    expect(page.entries.map((e) => e.resource.type)).toEqual(['database', 'database', 'database', 'database']);
    expect(page.entries.map((e) => Date.parse(e.time) - T0)).toEqual([9000, 6000, 3000, 0]);
  });

  it('leaves out entries before notBefore', async () => {
    const store = new MemoryObjectStore();
    await filled(store, 'acme', 5);
    const page = await new AuditTrail(store).page('acme', { limit: 10, notBefore: new Date(T0 + 2500) });
    expect(page.entries.map((e) => Date.parse(e.time) - T0)).toEqual([4000, 3000]);
    expect(page.next).toBeUndefined();
  });

  it('prunes by age and by count in every project, deleted ones included', async () => {
    const store = new MemoryObjectStore();
    await filled(store, 'acme', 6);
    await filled(store, 'gone', 2);
    const trail = new AuditTrail(store, { maxAgeMs: 10_000, maxEntries: 3 });
    // At T0 + 12 s, entries older than T0 + 2 s are past their age (acme's 0 and 1 s, both of gone's);
    // acme keeps its 3 newest of the rest (3..5 s), so 2 s goes by count.
    expect(await trail.prune(new Date(T0 + 12_000))).toBe(2 + 1 + 2);
    expect((await trail.page('acme', { limit: 10 })).entries.map((e) => Date.parse(e.time) - T0)).toEqual([5000, 4000, 3000]);
    expect((await trail.page('gone', { limit: 10 })).entries).toEqual([]);
    expect(await trail.prune(new Date(T0 + 12_000))).toBe(0);
  });

  it('writes an entry again under the same key when its outcome is known', async () => {
    const store = new MemoryObjectStore();
    const trail = new AuditTrail(store);
    const pending = { ...entry('acme', T0), status: null };
    await trail.record(pending);
    await trail.record({ ...pending, status: 204 });
    expect((await store.list('audit/acme/')).items.map((i) => i.key)).toEqual([entryKey(pending)]);
    expect((await trail.page('acme', { limit: 5 })).entries[0]?.status).toBe(204);
  });
});
