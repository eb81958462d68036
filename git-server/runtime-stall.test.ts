import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RuntimeStallMonitor } from './runtime-stall.ts';

/** Blocks this thread (the event loop with it) for `ms`. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const stalls = (registry: Registry) => registry.getSingleMetricAsString('service_runtime_stall_total');
let monitor: RuntimeStallMonitor | undefined;
afterEach(() => monitor?.stop());

describe('RuntimeStallMonitor', () => {
  it('counts a stall longer than the threshold and logs how long it was', async () => {
    const registry = new Registry();
    const warnings: object[] = [];
    monitor = new RuntimeStallMonitor({ registry, log: { warn: (obj) => warnings.push(obj) }, thresholdMs: 40 });
    expect(await stalls(registry)).toContain('service_runtime_stall_total 0');
    monitor.start();
    blockEventLoop(150);
    await vi.waitFor(() => expect(warnings).not.toEqual([]));
    expect(await stalls(registry)).toMatch(/^service_runtime_stall_total [1-9]$/m);
    // The timer was due at most a quarter of the threshold after the block began.
    expect(warnings[0]).toEqual({ stalledMs: expect.toSatisfy((ms: number) => ms >= 150 - 10 && ms < 1000), thresholdMs: 40 });
  });

  it('counts nothing once stopped', async () => {
    const registry = new Registry();
    monitor = new RuntimeStallMonitor({ registry, log: { warn: () => expect.unreachable() }, thresholdMs: 40 });
    monitor.start();
    monitor.stop();
    blockEventLoop(100);
    // A tick that was due during the block would run before this timer, due after it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await stalls(registry)).toContain('service_runtime_stall_total 0');
  });
});
