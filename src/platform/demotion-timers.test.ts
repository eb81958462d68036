import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { DemotionTimers } from './demotion-timers.ts';
import { DEMOTION_GRACE_MS } from './host-admission.ts';

/** A domain of project p found not delegated at `since`, after having been delegated: in its demotion grace until since + the grace. */
const demoted = (since: number): ProjectDomain => ({
  metadata: { namespace: 'p', name: 'example-org' },
  spec: { domain: 'example.org' },
  status: {
    hostedZoneId: 'Z1',
    state: 'pending_delegation',
    delegatedAt: new Date(since - 60_000).toISOString(),
    conditions: [{ type: 'Delegated', status: 'False', reason: 'NotDelegated', message: '', lastTransitionTime: new Date(since).toISOString() }],
  },
});

afterEach(() => {
  vi.useRealTimers();
});

/** Timers over one domain whose grace ends 10 s from now, with what they told. */
function tenSecondsLeft() {
  vi.useFakeTimers({ now: 1_000_000_000_000 });
  const ended: string[] = [];
  const domain = demoted(Date.now() - DEMOTION_GRACE_MS + 10_000);
  const timers = new DemotionTimers(
    (project) => ended.push(project),
    () => domain,
  );
  timers.seen(domain);
  return { ended, timers, domain };
}

describe('DemotionTimers', () => {
  it('tells the project when the grace runs out, and nothing for a domain gone before', () => {
    const { ended, timers, domain } = tenSecondsLeft();
    vi.advanceTimersByTime(9_999);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(ended).toEqual(['p']);
    timers.seen(demoted(Date.now() - DEMOTION_GRACE_MS + 5_000));
    timers.seen(domain, true);
    vi.advanceTimersByTime(10_000);
    expect(ended).toEqual(['p']);
  });

  it('waits again when the wall clock says the grace is not over when its timer fires (a clock stepped back)', () => {
    const { ended, timers } = tenSecondsLeft();
    vi.setSystemTime(Date.now() - 5_000);
    vi.advanceTimersByTime(10_001);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(5_001);
    expect(ended).toEqual(['p']);
    timers.stop();
  });
});
