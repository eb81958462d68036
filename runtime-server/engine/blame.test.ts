import { describe, expect, it } from 'vitest';
import { attribute, type StallEvidence } from './blame.ts';

const bounds = { lateMs: 200, endedGraceMs: 10 };
const T = 1_000_000; // the shard's last sign of life

function evidence(open: Array<[string, number]>, ended: Array<[string, number]> = []): StallEvidence {
  return { open: open.map(([app, sentAt]) => ({ app, sentAt })), ended: new Map(ended), lastAlive: T };
}

describe('attribute', () => {
  it('blames the one app with a request in flight when the shard stopped', () => {
    expect(attribute(evidence([['p/loop', T - 5]]), bounds)).toEqual({ kind: 'blame', app: 'p/loop' });
  });

  it('blames an app once, however many of its requests were in flight', () => {
    expect(
      attribute(
        evidence([
          ['p/loop', T - 5],
          ['p/loop', T + 10],
          ['p/loop', T - 3000],
        ]),
        bounds,
      ),
    ).toEqual({ kind: 'blame', app: 'p/loop' });
  });

  it('does not suspect requests sent after the shard had stopped answering: they never ran', () => {
    // Another app's requests keep arriving during the stall; they wait unread in the socket.
    const verdict = attribute(
      evidence([
        ['p/loop', T + 20],
        ['q/victim', T + 250],
        ['q/victim', T + 400],
      ]),
      bounds,
    );
    expect(verdict).toEqual({ kind: 'blame', app: 'p/loop' });
  });

  it('blames nobody when another app also had a request in flight since before: either may have been running', () => {
    // The innocent awaits a slow upstream (sent long ago, no answer yet); from outside it looks like the looper.
    const verdict = attribute(
      evidence([
        ['q/innocent', T - 2000],
        ['p/loop', T + 1],
      ]),
      bounds,
    );
    expect(verdict).toEqual({ kind: 'ambiguous', apps: ['p/loop', 'q/innocent'] });
  });

  it('suspects the app whose answer was the last thing the shard sent (work after its answer, such as ctx.waitUntil)', () => {
    expect(attribute(evidence([], [['p/background', T]]), bounds)).toEqual({ kind: 'blame', app: 'p/background' });
    expect(attribute(evidence([['q/other', T - 1]], [['p/background', T - 5]]), bounds)).toEqual({ kind: 'ambiguous', apps: ['p/background', 'q/other'] });
  });

  it('does not suspect an app whose request ended before the shard last answered something else', () => {
    // The shard answered a health check (or another request) since: it was not stuck in that app's work then.
    expect(attribute(evidence([['p/loop', T]], [['q/earlier', T - 60]]), bounds)).toEqual({ kind: 'blame', app: 'p/loop' });
  });

  it('attributes nothing when no request could have been running', () => {
    expect(attribute(evidence([['q/late', T + 300]], [['q/old', T - 60_000]]), bounds)).toEqual({ kind: 'unattributed' });
  });
});
