import { describe, expect, it } from 'vitest';
import { setCondition } from './conditions.ts';
import { withStalled } from './stalled.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const ready = (status: 'True' | 'False', reason: string) => setCondition([], { type: 'Ready', status, reason, message: `${reason} message` }, 3, t0).conditions;

describe('withStalled', () => {
  it('says Stalled with Ready’s reason while Ready is False for a reason that waits for a person', () => {
    expect(withStalled('RuntimeApp', ready('False', 'BuildFailed'), 3, t0).find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'BuildFailed',
      message: 'BuildFailed message',
      observedGeneration: 3,
    });
  });

  it('says nothing while the controller is still at work, and removes what it said once Ready moves on', () => {
    expect(withStalled('RuntimeApp', ready('False', 'RollingOut'), 3, t0).map((c) => c.type)).toEqual(['Ready']);
    const stalled = withStalled('Database', ready('False', 'TokenSecretConflict'), 3, t0);
    const recovered = setCondition(stalled, { type: 'Ready', status: 'True', reason: 'Ready', message: 'ok' }, 4, t0).conditions;
    expect(withStalled('Database', recovered, 4, t0).map((c) => c.type)).toEqual(['Ready']);
  });

  it('is stable: the same input gives the same conditions (no write on a resync)', () => {
    const once = withStalled('AppHostname', ready('False', 'HostnameTaken'), 3, t0);
    expect(withStalled('AppHostname', once, 3, new Date(t0.getTime() + 60_000))).toEqual(once);
  });
});
