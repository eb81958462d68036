import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventWriter } from '../kube/event-writer.ts';
import type { KubeConnection } from '../kube/kube-config.ts';
import { objectClient } from '../kube/object-client.ts';
import { CONFIG_MAPS, EVENTS } from '../kube/resource.ts';
import { testConnection, testNamespace } from '../kube/testing/test-kube.ts';
import type { KubeObject } from '../kube/types.ts';
import { EventRecorder } from './events.ts';

interface EventObject extends KubeObject {
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  involvedObject?: { kind?: string; name?: string; uid?: string };
  source?: { component?: string };
}

let conn: KubeConnection;
let ns: { name: string; remove: () => Promise<void> };
beforeAll(async () => {
  conn = testConnection();
  ns = await testNamespace(conn, 'events');
});
afterAll(async () => ns?.remove());

describe('EventRecorder against the apiserver', () => {
  it('writes one Event per (object, reason, message) and counts repeats', async () => {
    const subject = await objectClient(conn, CONFIG_MAPS).create({ metadata: { namespace: ns.name, name: 'subject' } });
    let now = Date.parse('2025-01-01T00:00:00Z');
    const recorder = new EventRecorder({ writer: eventWriter(conn), component: 'cloudwright-operator', instance: 'test', now: () => (now += 1000) });
    await Promise.all([recorder.warning(subject, 'SyncFailed', 'zone not found'), recorder.warning(subject, 'SyncFailed', 'zone not found')]);
    await recorder.warning(subject, 'SyncFailed', 'zone not found');
    await recorder.normal(subject, 'Synced', 'zone created');

    const events = objectClient<EventObject>(conn, EVENTS);
    const list = await events.list(ns.name, { fieldSelector: `involvedObject.name=subject` });
    const byReason = Object.fromEntries(list.items.map((e) => [e.reason, e]));
    expect(list.items).toHaveLength(2);
    expect(byReason.SyncFailed).toMatchObject({
      type: 'Warning',
      message: 'zone not found',
      count: 3,
      source: { component: 'cloudwright-operator' },
      involvedObject: { kind: 'ConfigMap', name: 'subject', uid: subject.metadata?.uid },
      firstTimestamp: '2025-01-01T00:00:01Z',
    });
    expect(byReason.SyncFailed?.lastTimestamp).toBe('2025-01-01T00:00:03Z');
    expect(byReason.Synced).toMatchObject({ type: 'Normal', count: 1 });
  });

  it('starts a new Event after the old one was deleted', async () => {
    const subject = await objectClient(conn, CONFIG_MAPS).create({ metadata: { namespace: ns.name, name: 'expiring' } });
    const recorder = new EventRecorder({ writer: eventWriter(conn), component: 'cw' });
    const events = objectClient<EventObject>(conn, EVENTS);
    const find = async () => (await events.list(ns.name, { fieldSelector: 'involvedObject.name=expiring' })).items;
    await recorder.normal(subject, 'Deployed', 'v1');
    const [first] = await find();
    await events.delete(ns.name, first?.metadata?.name ?? '');
    await recorder.normal(subject, 'Deployed', 'v1');
    await vi.waitFor(async () => expect((await find()).map((e) => e.count)).toEqual([1]));
  });

  it('does not throw when the apiserver refuses the Event', async () => {
    const recorder = new EventRecorder({ writer: eventWriter(conn), component: 'cw' });
    // No such namespace: the create fails with 404, and the recorder only logs.
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'no-such-namespace-xyz', name: 'ghost' } };
    await expect(recorder.warning(ghost, 'Failed', 'x')).resolves.toBeUndefined();
  });
});
