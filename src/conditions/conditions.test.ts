import { describe, expect, it } from 'vitest';
import { isFalse, isTrue, removeCondition, setCondition, type Condition, type ConditionUpdate } from './conditions.ts';

const t0 = new Date('2025-01-01T00:00:00.123Z');
const t1 = new Date('2025-01-01T01:00:00.999Z');
const ready = (over: Partial<Condition> = {}): Condition => ({
  type: 'Ready',
  status: 'True',
  reason: 'Deployed',
  message: 'app is serving',
  observedGeneration: 1,
  lastTransitionTime: '2025-01-01T00:00:00Z',
  ...over,
});

describe('setCondition', () => {
  const cases: Array<{
    name: string;
    before: Condition[] | undefined;
    update: ConditionUpdate;
    generation?: number;
    changed: boolean;
    after: Condition[];
  }> = [
    {
      name: 'adds to an empty status',
      before: undefined,
      update: { type: 'Ready', status: 'True', reason: 'Deployed', message: 'app is serving' },
      generation: 1,
      changed: true,
      after: [ready({ lastTransitionTime: '2025-01-01T01:00:00Z' })],
    },
    {
      name: 'is a no-op when nothing differs',
      before: [ready()],
      update: { type: 'Ready', status: 'True', reason: 'Deployed', message: 'app is serving' },
      generation: 1,
      changed: false,
      after: [ready()],
    },
    {
      name: 'moves lastTransitionTime when status flips',
      before: [ready()],
      update: { type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'exit 1' },
      generation: 1,
      changed: true,
      after: [ready({ status: 'False', reason: 'BuildFailed', message: 'exit 1', lastTransitionTime: '2025-01-01T01:00:00Z' })],
    },
    {
      name: 'keeps lastTransitionTime when only the reason changes',
      before: [ready()],
      update: { type: 'Ready', status: 'True', reason: 'RolledBack', message: 'app is serving' },
      generation: 1,
      changed: true,
      after: [ready({ reason: 'RolledBack' })],
    },
    {
      name: 'keeps lastTransitionTime when only the message changes',
      before: [ready()],
      update: { type: 'Ready', status: 'True', reason: 'Deployed', message: 'app is serving v2' },
      generation: 1,
      changed: true,
      after: [ready({ message: 'app is serving v2' })],
    },
    {
      name: 'records a new observedGeneration as a change',
      before: [ready()],
      update: { type: 'Ready', status: 'True', reason: 'Deployed', message: 'app is serving' },
      generation: 2,
      changed: true,
      after: [ready({ observedGeneration: 2 })],
    },
    {
      name: 'appends a second type and keeps order',
      before: [ready()],
      update: { type: 'DNSSynced', status: 'Unknown', reason: 'Pending' },
      generation: 1,
      changed: true,
      after: [ready(), { type: 'DNSSynced', status: 'Unknown', reason: 'Pending', message: '', observedGeneration: 1, lastTransitionTime: '2025-01-01T01:00:00Z' }],
    },
    {
      name: 'omits observedGeneration when unknown',
      before: [],
      update: { type: 'Ready', status: 'False', reason: 'Pending' },
      changed: true,
      after: [{ type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: '2025-01-01T01:00:00Z' }],
    },
  ];

  it.each(cases)('$name', ({ before, update, generation, changed, after }) => {
    const frozen = before && structuredClone(before);
    const result = setCondition(before, update, generation, t1);
    expect(result.changed).toBe(changed);
    expect(result.conditions).toEqual(after);
    expect(before).toEqual(frozen); // input untouched
    if (before) expect(result.conditions).not.toBe(before);
  });

  it('formats the first transition time with whole seconds', () => {
    const { conditions } = setCondition([], { type: 'Ready', status: 'True', reason: 'Deployed' }, 1, t0);
    expect(conditions[0]?.lastTransitionTime).toBe('2025-01-01T00:00:00Z');
  });

  it.each([
    ['reason with spaces', { type: 'Ready', status: 'True', reason: 'not ready' }],
    ['lower-case reason', { type: 'Ready', status: 'True', reason: 'deployed' }],
    ['snake_case reason', { type: 'Ready', status: 'True', reason: 'Build_Failed' }],
    ['empty reason', { type: 'Ready', status: 'True', reason: '' }],
    ['lower-case type', { type: 'ready', status: 'True', reason: 'Deployed' }],
    ['bad status', { type: 'Ready', status: 'Yes', reason: 'Deployed' }],
  ] as Array<[string, ConditionUpdate]>)('rejects %s', (_, update) => {
    expect(() => setCondition([], update, 1, t0)).toThrow(TypeError);
  });

  it('caps the message at the API limit', () => {
    const { conditions } = setCondition([], { type: 'Ready', status: 'False', reason: 'Failed', message: 'x'.repeat(40_000) }, 1, t0);
    expect(conditions[0]?.message).toHaveLength(32768);
  });
});

describe('condition queries', () => {
  const conditions = [ready(), ready({ type: 'DNSSynced', status: 'False' }), ready({ type: 'Built', status: 'Unknown' })];
  it.each([
    ['Ready', true, false],
    ['DNSSynced', false, true],
    ['Built', false, false],
    ['Missing', false, false],
  ] as const)('%s: isTrue=%s isFalse=%s', (type, t, f) => {
    expect(isTrue(conditions, type)).toBe(t);
    expect(isFalse(conditions, type)).toBe(f);
  });

  it('isTrue on no conditions', () => expect(isTrue(undefined, 'Ready')).toBe(false));

  it('removes a condition', () => {
    expect(removeCondition(conditions, 'Built')).toEqual({ conditions: conditions.slice(0, 2), changed: true });
    expect(removeCondition(conditions, 'Missing').changed).toBe(false);
  });
});
