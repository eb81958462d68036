import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../kube/api-error.ts';
import type { EventWriter, NewEvent } from '../kube/event-writer.ts';
import { EventRecorder } from './events.ts';
import { createLogger } from '../logging/log.ts';

function memoryWriter() {
  const events = new Map<string, NewEvent & { count: number; last: number }>();
  let n = 0;
  const writer: EventWriter & { fail?: Error } = {
    async create(e) {
      if (writer.fail) throw writer.fail;
      const name = `${e.involvedObject.name}.${++n}`;
      events.set(name, { ...e, count: 1, last: e.time });
      return name;
    },
    async bump(_ns, name, count, time) {
      if (writer.fail) throw writer.fail;
      const e = events.get(name);
      if (!e) throw new KubeApiError(404, 'not found', 'NotFound');
      e.count = count;
      e.last = time;
    },
  };
  return { writer, events };
}

/** A memory writer whose creates wait until `release` resolves: writes stay in flight as long as a test needs. */
function heldWriter() {
  const { writer, events } = memoryWriter();
  const release = Promise.withResolvers<void>();
  const slow: EventWriter = {
    create: async (e) => {
      await release.promise;
      return writer.create(e);
    },
    bump: (...args) => writer.bump(...args),
  };
  return { slow, events, release };
}

const app = { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', metadata: { namespace: 'p1', name: 'web', uid: 'u1', resourceVersion: '7' } };

describe('EventRecorder', () => {
  it('aggregates repeats into one event with a count, even when fired concurrently', async () => {
    const { writer, events } = memoryWriter();
    let now = 1000;
    const recorder = new EventRecorder({ writer, component: 'cw', instance: 'pod-1', now: () => now++ });
    await Promise.all([1, 2, 3].map(() => recorder.warning(app, 'BuildFailed', 'exit 1')));
    await recorder.warning(app, 'BuildFailed', 'exit 1');
    expect(events.size).toBe(1);
    const [event] = [...events.values()];
    expect(event).toMatchObject({ count: 4, type: 'Warning', reason: 'BuildFailed', namespace: 'p1', component: 'cw', instance: 'pod-1' });
    expect(event?.involvedObject).toEqual({ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name: 'web', namespace: 'p1', uid: 'u1', resourceVersion: '7' });
    expect(event?.last).toBeGreaterThan(event?.time ?? 0);
  });

  it('keeps distinct reasons, messages and objects apart', async () => {
    const { writer, events } = memoryWriter();
    const recorder = new EventRecorder({ writer, component: 'cw' });
    await recorder.normal(app, 'Deployed', 'v1');
    await recorder.normal(app, 'Deployed', 'v2');
    await recorder.normal(app, 'RolledBack', 'v1');
    await recorder.normal({ ...app, metadata: { ...app.metadata, name: 'api', uid: 'u2' } }, 'Deployed', 'v1');
    expect(events.size).toBe(4);
  });

  it('starts a new event when the old one expired', async () => {
    const { writer, events } = memoryWriter();
    const recorder = new EventRecorder({ writer, component: 'cw' });
    await recorder.normal(app, 'Deployed', 'v1');
    events.clear();
    await recorder.normal(app, 'Deployed', 'v1');
    expect([...events.values()].map((e) => e.count)).toEqual([1]);
  });

  it('puts events about cluster-scoped objects in default', async () => {
    const { writer, events } = memoryWriter();
    const recorder = new EventRecorder({ writer, component: 'cw' });
    await recorder.normal({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'p1' } }, 'Adopted', 'project namespace');
    expect([...events.values()][0]?.namespace).toBe('default');
  });

  it('never rejects, and logs instead', async () => {
    const { writer } = memoryWriter();
    writer.fail = new KubeApiError(403, 'events is forbidden', 'Forbidden');
    const lines: string[] = [];
    const recorder = new EventRecorder({ writer, component: 'cw', log: createLogger({ write: (l) => void lines.push(l) }) });
    await expect(recorder.warning(app, 'BuildFailed', 'x')).resolves.toBeUndefined();
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 'warn', namespace: 'p1', name: 'web', reason: 'BuildFailed', err: { code: 403 } });
  });

  it('drops events past its bound on pending writes, logs it once, and writes again once they are done', async () => {
    const { slow, events, release } = heldWriter();
    const lines: string[] = [];
    const recorder = new EventRecorder({ writer: slow, component: 'cw', maxPending: 2, maxPendingPerNamespace: 2, log: createLogger({ write: (l) => void lines.push(l) }) });
    const written = [recorder.normal(app, 'A', 'one'), recorder.normal(app, 'B', 'two')];
    await recorder.normal(app, 'C', 'three');
    await recorder.normal(app, 'D', 'four');
    expect(recorder.pending).toBe(2);
    expect(lines.map((l) => JSON.parse(l) as { msg: string; dropped: number })).toEqual([expect.objectContaining({ msg: 'dropping events: too many writes pending', dropped: 1 })]);

    release.resolve();
    await Promise.all(written);
    expect(recorder.pending).toBe(0);
    await recorder.normal(app, 'E', 'five');
    expect([...events.values()].map((e) => e.reason)).toEqual(['A', 'B', 'E']);
  });

  it('gives each namespace a share of the bound: a tenant’s burst drops its own events, not another’s', async () => {
    const { slow, events, release } = heldWriter();
    const recorder = new EventRecorder({ writer: slow, component: 'cw', maxPending: 10 });
    const inNamespace = (namespace: string, name: string) => ({ ...app, metadata: { ...app.metadata, namespace, name, uid: `${namespace}-${name}` } });
    // The default share is a tenth of the bound: one write in flight per namespace here.
    const written = [recorder.normal(inNamespace('busy', 'a'), 'Burst', 'one')];
    await recorder.normal(inNamespace('busy', 'b'), 'Burst', 'two');
    written.push(recorder.normal(inNamespace('quiet', 'c'), 'Deployed', 'three'));
    expect(recorder.pending).toBe(2);
    release.resolve();
    await Promise.all(written);
    expect([...events.values()].map((e) => `${e.namespace}/${e.reason}`)).toEqual(['busy/Burst', 'quiet/Deployed']);
    // Its writes done, the busy namespace writes again.
    await recorder.normal(inNamespace('busy', 'd'), 'Burst', 'four');
    expect(events.size).toBe(3);
  });

  it('truncates long messages', async () => {
    const { writer, events } = memoryWriter();
    const recorder = new EventRecorder({ writer, component: 'cw' });
    await recorder.warning(app, 'BuildFailed', 'x'.repeat(5000));
    expect([...events.values()][0]?.message).toHaveLength(1024);
  });
});
