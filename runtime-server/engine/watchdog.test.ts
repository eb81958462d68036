import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { SustainedUse } from './sustained-cpu.ts';
import { mainThreadBusyMs, mainThreadCpuMs, mainThreadRunMs, residentBytes, Watchdog, type WatchdogTarget } from './watchdog.ts';

const options = { intervalMs: 10, cpuLimitMs: 60, startupLimitMs: 200, memoryLimitBytes: 1000 };

/** A target whose pings answer or hang as the test says; its thread computes all the time unless told otherwise. */
function target(overrides: Partial<WatchdogTarget> & { hang?: boolean } = {}) {
  let lastOutput = Date.now();
  let pings = 0;
  const started = Date.now();
  const t: WatchdogTarget & { pings: () => number; output: () => void } = {
    ping: () => {
      pings += 1;
      return overrides.hang ? new Promise<number | undefined>(() => {}) : Promise.resolve(7);
    },
    rss: () => 500,
    cpuMs: () => Date.now() - started,
    lastOutput: () => lastOutput,
    answered: () => void (lastOutput = Date.now()),
    pings: () => pings,
    output: () => void (lastOutput = Date.now()),
    ...overrides,
  };
  return t;
}

function watch(t: WatchdogTarget) {
  const events: string[] = [];
  let stuckAt = 0;
  const dog = new Watchdog(t, options, {
    stuck: (kind) => {
      stuckAt = Date.now();
      events.push(kind);
    },
    healthy: (loads) => events.push(`healthy ${loads}`),
    unhealthy: () => events.push('unhealthy'),
  });
  return { dog, events, stuckAt: () => stuckAt };
}

describe('Watchdog', () => {
  it('does not call a shard unhealthy for a ping this process could not send for want of file descriptors', async () => {
    let pings = 0;
    const outOfFiles = Object.assign(new Error('connect EMFILE'), { code: 'EMFILE' });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const t = target({ ping: () => Promise.reject(++pings <= 3 ? outOfFiles : refused) });
    const { dog, events } = watch(t);
    dog.start();
    await expect.poll(() => events.length).toBeGreaterThan(0);
    dog.stop();
    // Only the pings that reached nothing counted; the first three, refused by this process itself, did not.
    expect(pings).toBeGreaterThan(3);
    expect(events.every((e) => e === 'unhealthy')).toBe(true);
    expect(events.length).toBeLessThanOrEqual(pings - 3);
  });

  it('reports a healthy shard with its loaded isolates', async () => {
    const { dog, events } = watch(target());
    dog.start();
    await expect.poll(() => events.length).toBeGreaterThan(2);
    dog.stop();
    expect(new Set(events)).toEqual(new Set(['healthy 7']));
  });

  it('finds a shard stuck once it has computed the CPU bound with a ping waiting and nothing answered, and says so once', async () => {
    const t = target({ hang: true });
    const { dog, events, stuckAt } = watch(t);
    const started = Date.now();
    dog.start();
    await expect.poll(() => events).toEqual(['cpu']);
    const after = stuckAt() - started;
    expect(after).toBeGreaterThanOrEqual(options.cpuLimitMs);
    expect(after).toBeLessThan(options.cpuLimitMs + 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual(['cpu']);
    expect(t.pings()).toBe(1);
  });

  it("allows an isolate's load the startup allowance more, counted in CPU time from when its code was handed over", async () => {
    const t = target({ hang: true });
    const { dog, events, stuckAt } = watch(t);
    const started = Date.now();
    dog.start();
    dog.loading();
    await expect.poll(() => events).toEqual(['cpu']);
    const after = stuckAt() - started;
    expect(after).toBeGreaterThanOrEqual(options.cpuLimitMs + options.startupLimitMs);
    expect(after).toBeLessThan(options.cpuLimitMs + options.startupLimitMs + 200);
  });

  it('ends the allowance once the shard has computed it: a stall after a load has the plain bound', async () => {
    const t = target({ hang: true });
    const { dog, events, stuckAt } = watch(t);
    const started = Date.now();
    const answering = setInterval(() => t.output(), 5);
    dog.start();
    dog.loading(); // the allowance lasts until the shard has computed 60 + 200 ms more
    await new Promise((resolve) => setTimeout(resolve, 400));
    clearInterval(answering); // silent from here, past the allowance
    const silent = Date.now();
    await expect.poll(() => events).toEqual(['cpu']);
    // The plain bound (60 ms), not the bound and the allowance (260 ms), from the moment it went silent.
    expect(stuckAt() - silent).toBeLessThan(options.cpuLimitMs + options.startupLimitMs);
    expect(stuckAt() - started).toBeGreaterThanOrEqual(400);
  });

  it('does not find a shard stuck while it keeps answering requests, however late its ping', async () => {
    const t = target({ hang: true });
    const { dog, events } = watch(t);
    const answering = setInterval(() => t.output(), 5);
    dog.start();
    await new Promise((resolve) => setTimeout(resolve, 4 * options.cpuLimitMs));
    expect(events).toEqual([]);
    clearInterval(answering); // now nothing comes out of it
    await expect.poll(() => events).toEqual(['cpu']);
  });

  it('does not find a shard stuck that the machine does not schedule: it computes nothing', async () => {
    const { dog, events } = watch(target({ hang: true, cpuMs: () => 1234 }));
    dog.start();
    await new Promise((resolve) => setTimeout(resolve, 4 * options.cpuLimitMs));
    dog.stop();
    expect(events).toEqual([]);
  });

  it('ends a shard that computes without answering on a machine so busy it gets a sliver of a core, after ten times the bound', async () => {
    const started = Date.now();
    const { dog, events, stuckAt } = watch(target({ hang: true, cpuMs: () => (Date.now() - started) / 20 }));
    dog.start();
    await expect.poll(() => events, { timeout: 30 * options.cpuLimitMs }).toEqual(['cpu']);
    expect(stuckAt() - started).toBeGreaterThanOrEqual(10 * options.cpuLimitMs);
  });

  it('ends a shard past its memory bound', async () => {
    const { dog, events } = watch(target({ rss: () => 2000 }));
    dog.start();
    await expect.poll(() => events).toEqual(['memory']);
  });

  it('reads an answer that arrived while this process was busy before it finds the shard stuck', async () => {
    const t = target({ hang: true });
    const { dog, events } = watch(t);
    // An answer from the shard arrives on a socket, as the entry point's do.
    const server = createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    client.on('data', () => t.output());
    const accepted = await new Promise<Socket>((resolve) => server.once('connection', resolve));
    dog.start();
    await expect.poll(() => t.pings()).toBe(1); // a ping waits
    // Busy in the check phase, so the next turn runs its timers (the watchdog's tick) before it reads sockets.
    await new Promise<void>((resolve) =>
      setTimeout(
        () =>
          setImmediate(() => {
            accepted.write('answer'); // in the kernel's buffer, unread: this process is busy for longer than the bound
            const until = Date.now() + 2 * options.cpuLimitMs;
            while (Date.now() < until);
            resolve();
          }),
        1,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 3 * options.intervalMs));
    dog.stop();
    client.destroy();
    server.close();
    expect(events).toEqual([]);
  });

  it("reads resident memory and the main thread's CPU time from /proc", () => {
    expect(residentBytes(1, () => '1000 25 3 1 0 10 0')).toBe(25 * 4096);
    const stat = '42 (work erd) R 1 42 42 0 -1 4194560 100 0 0 0 146 2 0 0 20 0 2 0 100 0 0';
    expect(mainThreadCpuMs(42, (path) => (path === '/proc/42/task/42/stat' ? stat : ''))).toBe(1480);
    expect(
      residentBytes(1, () => {
        throw new Error('gone');
      }),
    ).toBeUndefined();
    expect(mainThreadBusyMs(42, (path) => (path === '/proc/42/task/42/schedstat' ? '404145736 6813209 47\n' : ''))).toBeCloseTo(410.958945);
    expect(mainThreadBusyMs(42, () => '')).toBeUndefined();
    // To the nanosecond where the kernel keeps schedstat, else in /stat's steps of 10 ms.
    expect(mainThreadRunMs(42, (path) => (path === '/proc/42/task/42/schedstat' ? '404145736 6813209 47\n' : stat))).toBeCloseTo(404.145736);
    expect(mainThreadRunMs(42, (path) => (path === '/proc/42/task/42/stat' ? stat : ''))).toBe(1480);
  });

  it('reports a thread saturated over the sustained window with the requests in flight, once a window', async () => {
    const found: SustainedUse[] = [];
    const t = target({ inFlight: () => new Map([['hog/a', 3]]) }); // its thread computes all the time
    const dog = new Watchdog(t, { ...options, sustainedWindowMs: 50 }, { stuck: () => {}, healthy: () => {}, unhealthy: () => {}, sustained: (use) => found.push(use) });
    dog.start();
    await expect.poll(() => found.length).toBeGreaterThanOrEqual(2);
    dog.stop();
    expect(found[0]).toMatchObject({ busy: expect.closeTo(1, 0) as number, waiting: new Set(['hog']) });
    expect(found[0]!.byRequests.get('hog/a')).toBe(1);
    expect(found[1]!.wallMs).toBeGreaterThanOrEqual(50);
  });
});
