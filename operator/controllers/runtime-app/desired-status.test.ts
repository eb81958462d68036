import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { desiredStatus } from './desired-status.ts';

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
