import { describe, expect, it } from 'vitest';
import { ConvergenceLoop } from './convergence-loop.ts';

/** A pass that waits until the test lets it end. */
function gatedPasses() {
  const gates: Array<() => void> = [];
  let passes = 0;
  let running = 0;
  let overlapped = false;
  const started: Array<() => void> = [];
  const loop = new ConvergenceLoop(async () => {
    passes += 1;
    running += 1;
    if (running > 1) overlapped = true;
    started.shift()?.();
    await new Promise<void>((resolve) => gates.push(resolve));
    running -= 1;
  });
  const nextStart = () => new Promise<void>((resolve) => started.push(resolve));
  const release = () => gates.shift()?.();
  return { loop, nextStart, release, passes: () => passes, overlapped: () => overlapped };
}

describe('ConvergenceLoop', () => {
  it('runs one pass per kick when idle, and one more for every burst of kicks during a pass', async () => {
    const t = gatedPasses();
    let started = t.nextStart();
    t.loop.kick();
    await started;
    t.loop.kick();
    t.loop.kick();
    t.loop.kick();
    started = t.nextStart();
    t.release();
    await started;
    expect(t.passes()).toBe(2);
    t.release();
    await t.loop.stop();
    expect(t.passes()).toBe(2);
    expect(t.overlapped()).toBe(false);
  });

  it('starts nothing once stopped, and stop waits for the pass running', async () => {
    const t = gatedPasses();
    const started = t.nextStart();
    t.loop.kick();
    await started;
    t.loop.kick();
    let stopped = false;
    const stopping = t.loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    t.release();
    await stopping;
    t.loop.kick();
    expect(t.passes()).toBe(1);
  });

  it('starts again on a kick after it went idle', async () => {
    const t = gatedPasses();
    let started = t.nextStart();
    t.loop.kick();
    await started;
    t.release();
    await Promise.resolve();
    started = t.nextStart();
    await new Promise<void>((resolve) => setImmediate(resolve)); // the first run has ended: nothing dirty
    t.loop.kick();
    await started;
    expect(t.passes()).toBe(2);
    t.release();
    await t.loop.stop();
  });
});
