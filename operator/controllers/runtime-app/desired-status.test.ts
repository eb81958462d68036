import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { desiredStatus, type RuntimeObservation } from './desired-status.ts';
import type { RuntimeAppReport } from './replica-reports.ts';

const t1 = new Date('2026-01-01T00:00:00Z');
const t2 = new Date('2026-01-01T01:00:00Z');

function app(spec: Partial<RuntimeApp['spec']> = {}, generation = 1, status?: RuntimeApp['status']): RuntimeApp {
  return { metadata: { name: 'hello', namespace: 'p', generation }, spec: { displayName: 'hello', ...spec }, ...(status ? { status } : {}) };
}

describe('desiredStatus', () => {
  it.each([
    ['no build', {}, 'NoBuild'],
    ['a build but no runtime', { activeBuildId: 'b1' }, 'RuntimeNotConfigured'],
  ])('%s → Ready=False with reason %s', (_name, spec, reason) => {
    const status = desiredStatus(app(spec), t1);
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason, observedGeneration: 1 });
    expect(findCondition(status.conditions, 'Deployed')).toMatchObject({ status: 'False', reason });
    expect(status.observedGeneration).toBe(1);
  });

  it('keeps lastTransitionTime when the status does not flip, and follows the generation', () => {
    const first = desiredStatus(app({}, 1), t1);
    const second = desiredStatus(app({ activeBuildId: 'b1' }, 2, first), t2);
    const ready = findCondition(second.conditions, 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'RuntimeNotConfigured', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z' });
    expect(second.observedGeneration).toBe(2);
  });

  it('is stable: the same input gives an equal status, so nothing is written twice', () => {
    const first = desiredStatus(app(), t1);
    expect(desiredStatus(app({}, 1, first), t2)).toEqual(first);
  });
});

describe('desiredStatus with a runtime', () => {
  const served = (over: Partial<RuntimeAppReport> = {}): RuntimeAppReport => ({
    namespace: 'p',
    app: 'hello',
    servingBuildId: 'b2',
    hosts: ['hello.p.apps.localhost', 'www.example.com'],
    url: 'https://hello.p.apps.localhost',
    servedGeneration: 2,
    observedGeneration: 2,
    ...over,
  });
  const observed = (replicas: Array<RuntimeAppReport | undefined>, buildExists = true): RuntimeObservation => ({ kind: 'observed', replicas, buildExists });
  const old = served({ servingBuildId: 'b1', servedGeneration: 1 });

  it.each<[string, RuntimeObservation, string, string, Partial<RuntimeApp['status']>]>([
    [
      'every replica serves the spec',
      observed([served(), served({ servedGeneration: 3 })]),
      'True',
      'Serving',
      { servingBuildId: 'b2', url: 'https://hello.p.apps.localhost', hosts: ['hello.p.apps.localhost', 'www.example.com'] },
    ],
    ['a replica has not acted on the app', observed([served(), undefined]), 'False', 'RollingOut', {}],
    ['a replica still serves the previous build', observed([old, served()]), 'False', 'RollingOut', { servingBuildId: 'b1' }],
    ['the build is served with an older spec (environment change)', observed([served({ servedGeneration: 1 })]), 'False', 'RollingOut', { servingBuildId: 'b2' }],
    [
      'workerd refuses the build',
      observed([{ ...old, observedGeneration: 2, failure: { reason: 'BuildFailed', buildId: 'b2', message: 'SyntaxError' } }]),
      'False',
      'BuildFailed',
      { servingBuildId: 'b1' },
    ],
    [
      'the artifact is missing',
      observed([{ namespace: 'p', app: 'hello', hosts: [], observedGeneration: 2, failure: { reason: 'BuildNotFound', buildId: 'b2', message: 'x' } }]),
      'False',
      'BuildNotFound',
      {},
    ],
    [
      'a replica has no room for the build',
      observed([served(), { ...old, observedGeneration: 2, failure: { reason: 'InsufficientStorage', buildId: 'b2', message: 'The runtime replica has no room for build b2.' } }]),
      'False',
      'InsufficientStorage',
      { servingBuildId: 'b1' },
    ],
    [
      'the project quota refuses the build on a replica',
      observed([{ ...old, observedGeneration: 2, failure: { reason: 'QuotaExceeded', buildId: 'b2', message: 'Over the quota.' } }]),
      'False',
      'QuotaExceeded',
      { servingBuildId: 'b1' },
    ],
    ['a transient failure', observed([{ ...old, observedGeneration: 2, failure: { reason: 'Retrying', buildId: 'b2', message: 'ECONNREFUSED' } }]), 'False', 'RollingOut', { servingBuildId: 'b1' }],
    ['a failure of an older generation', observed([{ ...old, observedGeneration: 1, failure: { reason: 'BuildFailed', buildId: 'b2', message: 'SyntaxError' } }]), 'False', 'RollingOut', {}],
    ['the Build resource is missing', observed([undefined], false), 'False', 'BuildNotFound', {}],
    ['the Build resource is missing but the runtime serves it anyway', observed([served()], false), 'True', 'Serving', {}],
    [
      'the worst replica decides',
      observed([served(), { ...old, observedGeneration: 2, failure: { reason: 'BuildFailed', buildId: 'b2', message: 'SyntaxError' } }, undefined]),
      'False',
      'BuildFailed',
      {},
    ],
  ])('%s → Deployed=%s %s', (_name, observation, deployed, reason, fields) => {
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observation);
    expect(findCondition(status.conditions, 'Deployed')).toMatchObject({ status: deployed, reason, observedGeneration: 2 });
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: deployed, reason });
    expect(status).toMatchObject({ observedGeneration: 2, ...fields });
  });

  it('says why a build failed and what is still served', () => {
    const status = desiredStatus(
      app({ activeBuildId: 'b2' }, 2),
      t1,
      observed([{ ...old, observedGeneration: 2, failure: { reason: 'BuildFailed', buildId: 'b2', message: 'Uncaught SyntaxError' } }]),
    );
    expect(findCondition(status.conditions, 'Deployed')?.message).toBe('Build b2 cannot be served: Uncaught SyntaxError The app keeps serving build b1.');
  });

  it('names the missing Build resource', () => {
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([undefined], false));
    expect(findCondition(status.conditions, 'Deployed')?.message).toBe('Build b2 does not exist: there is no Build hello-b2 in namespace p.');
  });

  it('keeps what is served while no replica runs', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, { kind: 'unavailable' });
    expect(findCondition(status.conditions, 'Deployed')).toMatchObject({ status: 'Unknown', reason: 'RuntimeUnavailable' });
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RuntimeUnavailable', lastTransitionTime: '2026-01-01T01:00:00Z' });
    expect(status).toMatchObject({ servingBuildId: 'b2', url: 'https://hello.p.apps.localhost' });
  });

  it('keeps what it said of the spec while the replicas taking traffic go through their first list', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served(), served()]));
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, { kind: 'starting' });
    expect(status.conditions).toEqual(before.conditions);
    expect(status).toEqual(before);
  });

  it('keeps a served spec served while a newly ready replica has not reported yet, and once it has', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    const seenReady = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, observed([served(), undefined]));
    expect(seenReady.conditions).toEqual(before.conditions);
    const reported = desiredStatus(app({ activeBuildId: 'b2' }, 2, seenReady), t2, observed([served(), served()]));
    expect(reported).toEqual(before);
    // Even with no report seen at all (the only replica restarted): what was said of the spec stands.
    const none = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, observed([undefined]));
    expect(none.conditions).toEqual(before.conditions);
    // A replica that reports something else is heard, and a spec not served yet waits for every replica.
    const stale = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, observed([served(), old]));
    expect(findCondition(stale.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut' });
    const newer = desiredStatus(app({ activeBuildId: 'b3' }, 3, before), t2, observed([served({ servingBuildId: 'b3', servedGeneration: 3 }), undefined]));
    expect(findCondition(newer.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut' });
  });

  it('changes nothing of a spec it spoke of while no replica runs within the grace, not even RuntimeUnavailable', () => {
    const served2 = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    expect(desiredStatus(app({ activeBuildId: 'b2' }, 2, served2), t2, { kind: 'waiting' })).toEqual(served2);
    // An operator restarting while the runtime is down: it does not say the replicas are starting.
    const unavailable = desiredStatus(app({ activeBuildId: 'b2' }, 2, served2), t2, { kind: 'unavailable' });
    expect(desiredStatus(app({ activeBuildId: 'b2' }, 2, unavailable), t2, { kind: 'waiting' })).toEqual(unavailable);
    // Of a newer spec nothing is known.
    const newer = desiredStatus(app({ activeBuildId: 'b3' }, 3, served2), t2, { kind: 'waiting' });
    expect(findCondition(newer.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'RollingOut',
      message: 'No runtime replica is running; the app is served once one is.',
      observedGeneration: 3,
    });
    expect(newer.servingBuildId).toBe('b2');
  });

  it('says a newer spec, or an app said unavailable, is not known to be served while the replicas start', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    const newer = desiredStatus(app({ activeBuildId: 'b3' }, 3, before), t2, { kind: 'starting' });
    expect(findCondition(newer.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut', observedGeneration: 3 });
    expect(findCondition(newer.conditions, 'Deployed')?.message).toMatch(/first list/);
    expect(newer.servingBuildId).toBe('b2');
    const unavailable = desiredStatus(app({ activeBuildId: 'b2' }, 2, before), t2, { kind: 'unavailable' });
    const starting = desiredStatus(app({ activeBuildId: 'b2' }, 2, unavailable), t2, { kind: 'starting' });
    expect(findCondition(starting.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RollingOut' });
  });

  it('forgets what was served once the app has no build', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    const status = desiredStatus(app({}, 3, before), t2, observed([]));
    expect(status.servingBuildId).toBeUndefined();
    expect(status.url).toBeUndefined();
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'NoBuild' });
  });

  it('keeps what is served while no replica has acted on a new spec', () => {
    const before = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    const status = desiredStatus(app({ activeBuildId: 'b3' }, 3, before), t2, observed([undefined]));
    expect(status).toMatchObject({ servingBuildId: 'b2', url: 'https://hello.p.apps.localhost', hosts: ['hello.p.apps.localhost', 'www.example.com'] });
    expect(findCondition(status.conditions, 'Deployed')).toMatchObject({ status: 'False', reason: 'RollingOut' });
  });

  it('says the same whatever the number of replicas serving the app: one coming or going writes nothing', () => {
    const one = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    expect(desiredStatus(app({ activeBuildId: 'b2' }, 2, one), t2, observed([served(), served(), served()]))).toEqual(one);
  });

  it('says how many replicas serve a spec while they disagree', () => {
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served(), old, served()]));
    expect(findCondition(status.conditions, 'Deployed')?.message).toBe('Rolling out build b2. The app keeps serving build b1. 2 of 3 runtime replicas serve it.');
  });

  it('is stable once served: nothing to write on the next reconcile', () => {
    const first = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served()]));
    expect(desiredStatus(app({ activeBuildId: 'b2' }, 2, first), t2, observed([served()]))).toEqual(first);
  });

  it('says Ready=False with the limit when a replica quarantines the app it serves, Deployed staying True', () => {
    const cpu = { reason: 'CPULimitExceeded' as const, until: '2026-01-01T00:01:00.000Z', message: 'The app was stopped: one of its requests ran for more than 500 ms without yielding.' };
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served({ quarantine: cpu }), served()]));
    expect(findCondition(status.conditions, 'Deployed')).toMatchObject({ status: 'True', reason: 'Serving' });
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'CPULimitExceeded',
      message: `${cpu.message} 1 of 2 runtime replicas answer its requests with 503 until its back-off ends (it doubles with each offence).`,
    });
    // A later back-off (another until) says the same: nothing to write.
    const again = desiredStatus(app({ activeBuildId: 'b2' }, 2, status), t2, observed([served({ quarantine: { ...cpu, until: '2026-01-01T00:05:00.000Z' } }), served()]));
    expect(again).toEqual(status);
    // Lifted: served again.
    const lifted = desiredStatus(app({ activeBuildId: 'b2' }, 2, status), t2, observed([served(), served()]));
    expect(findCondition(lifted.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Serving', lastTransitionTime: '2026-01-01T01:00:00Z' });
  });

  it('names the memory limit, and lets a failed deploy speak first', () => {
    const memory = { reason: 'MemoryLimitExceeded' as const, until: '2026-01-01T00:01:00.000Z', message: 'The app was stopped: it ran its runtime shard out of memory.' };
    const status = desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([served({ quarantine: memory })]));
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'MemoryLimitExceeded' });
    const failing = { ...old, observedGeneration: 2, failure: { reason: 'BuildFailed' as const, buildId: 'b2', message: 'SyntaxError' }, quarantine: memory };
    expect(findCondition(desiredStatus(app({ activeBuildId: 'b2' }, 2), t1, observed([failing])).conditions, 'Ready')).toMatchObject({ reason: 'BuildFailed' });
  });
});

describe('desiredStatus: HostnamesServed', () => {
  const report = (hosts: string[]): RuntimeAppReport => ({ namespace: 'p', app: 'hello', servingBuildId: 'b1', hosts, servedGeneration: 1, observedGeneration: 1 });
  const serving = (hosts: string[]): RuntimeObservation => ({ kind: 'observed', replicas: [report(hosts)], buildExists: true });

  it.each<[string, string[] | undefined, string[], { status: string; reason: string; message: RegExp } | undefined]>([
    ['no deploy host names: no condition', undefined, ['hello.p.apps.localhost'], undefined],
    ['every one routed', ['www.example.com'], ['hello.p.apps.localhost', 'www.example.com'], { status: 'True', reason: 'AllHostnamesServed', message: /www\.example\.com/ }],
    [
      'one not routed: named, the rest still served',
      ['www.example.com', 'shop.example.com'],
      ['hello.p.apps.localhost', 'www.example.com'],
      { status: 'False', reason: 'HostnamesRefused', message: /^Not served: shop\.example\.com\. Another app asks for the same name/ },
    ],
  ])('%s', (_name, hostnames, hosts, expected) => {
    const status = desiredStatus(app({ activeBuildId: 'b1', ...(hostnames ? { hostnames } : {}) }), t1, serving(hosts));
    const condition = findCondition(status.conditions, 'HostnamesServed');
    if (!expected) return expect(condition).toBeUndefined();
    expect(condition).toMatchObject({ status: expected.status, reason: expected.reason, observedGeneration: 1 });
    expect(condition?.message).toMatch(expected.message);
  });

  it('keeps what it said while a new spec rolls out, and drops it once the spec asks for no host names', () => {
    const refused = desiredStatus(app({ activeBuildId: 'b1', hostnames: ['shop.example.com'] }), t1, serving(['hello.p.apps.localhost']));
    const rolling = desiredStatus(app({ activeBuildId: 'b2', hostnames: ['shop.example.com'] }, 2, refused), t2, serving(['hello.p.apps.localhost']));
    expect(findCondition(rolling.conditions, 'HostnamesServed')).toMatchObject({ status: 'False', observedGeneration: 1 });
    const none = desiredStatus(app({ activeBuildId: 'b2' }, 3, rolling), t2, serving(['hello.p.apps.localhost']));
    expect(findCondition(none.conditions, 'HostnamesServed')).toBeUndefined();
  });
});
