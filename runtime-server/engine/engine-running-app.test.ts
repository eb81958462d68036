// A stuck shard's thread asked which app it runs (`running-app.ts`), against the real workerd: code an app runs after
// its answer, or inside a builtin, is laid on that app, not on another project's request that happened to be in flight.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';
import { inBuildNames, workerdIsolates } from './running-app.ts';
import { workerFingerprint, type LiveApp } from './worker-code.ts';

/** Answers at once, and `/think?ms=N` after awaiting a timer for N ms (in flight, computing nothing). */
const VICTIM = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/think') await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('ms'))));
    return new Response('victim ' + url.pathname);
  },
};
`;

/**
 * A tenant's attacks from a module of its own: `/after?ms=N` answers at once and loops N ms later in \`waitUntil\`
 * (tied to no request); `/grow?ms=N` grows its heap N ms later, in `waitUntil` too, and `/buffers?ms=N` its ArrayBuffers
 * (memory outside the heap, which its heap bound does not count: only the shard's bound), and `/bodies?ms=N` Response
 * bodies (memory workerd holds without telling V8); `/parse` loops inside a builtin (the
 * thread's counter is in JSON.parse, not the app's code).
 */
const ATTACKER = {
  'worker.js': `import { spin } from './lib/spin.js';
export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/after') {
      ctx.waitUntil((async () => { await scheduler.wait(Number(url.searchParams.get('ms'))); spin(); })());
      return new Response('answered');
    }
    if (url.pathname === '/grow') {
      ctx.waitUntil((async () => { await scheduler.wait(Number(url.searchParams.get('ms'))); const kept = []; for (;;) kept.push(new Array(1 << 20).fill(1.5)); })());
      return new Response('answered');
    }
    if (url.pathname === '/buffers') {
      ctx.waitUntil((async () => { await scheduler.wait(Number(url.searchParams.get('ms'))); const kept = []; for (;;) { kept.push(new Uint8Array(8 << 20).fill(1)); await scheduler.wait(5); } })());
      return new Response('answered');
    }
    if (url.pathname === '/bodies') {
      ctx.waitUntil((async () => { await scheduler.wait(Number(url.searchParams.get('ms'))); const kept = []; for (;;) { kept.push(new Response(new Uint8Array(8 << 20).fill(1))); await scheduler.wait(5); } })());
      return new Response('answered');
    }
    if (url.pathname === '/print') { for (let i = 0; i < 5000; i++) console.log('line ' + i); return new Response('printed'); }
    if (url.pathname === '/parse') { const text = JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i }))); for (;;) JSON.parse(text); }
    return new Response('ok');
  },
};
`,
  'lib/spin.js': 'export function spin() { let n = 0; for (;;) n++; }\n',
};

/**
 * A tenant that knows the victim's fingerprint (here: the test's own process computes it) and where workerd's own
 * code is mapped, and names a function with lines that claim all of that code for the victim, then loops inside a
 * builtin (where the thread's counter is in workerd's code, not the tenant's).
 */
function forger(pid: number, victimFingerprint: string): Uint8Array {
  const forged: string[] = [];
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const [range, perms, , , , path] = line.split(/\s+/);
    if (!perms?.includes('x') || !path?.startsWith('/')) continue;
    const [from, to] = range!.split('-').map((hex) => Number.parseInt(hex, 16));
    for (let at = from!; at < to!; at += 0x100000) forged.push(`${at.toString(16)} 100000 JS:forged cw-${victimFingerprint}/worker.js:1:1`);
  }
  const name = JSON.stringify(`x\n${forged.join('\n')}\ny`);
  return artifactFromFiles({
    'worker.js': `const named = { ${name}() { return 1; } };
export default {
  fetch() {
    named[${name}]();
    const text = JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i })));
    for (;;) JSON.parse(text);
  },
};
`,
  });
}

/**
 * A tenant hiding its own code: every function it runs is named with line breaks that end its script's line early
 * and start lines of their own, and it loops after its answer (in `waitUntil`), so only the thread can tell.
 */
const HIDER = `const spin = { ${JSON.stringify('x\n1 1 JS:y\n2 2 Script:~ z')}: async function () { await scheduler.wait(300); let n = 0; for (;;) n++; } };
export default {
  fetch(request, env, ctx) {
    ctx.waitUntil(spin[${JSON.stringify('x\n1 1 JS:y\n2 2 Script:~ z')}]());
    return new Response('answered');
  },
};
`;

/**
 * WebAssembly `f(n)`: calls itself `n` deep, each frame holding 64 zeroed 64-bit locals (about half a KB), then loops
 * for ever. Its code is not JavaScript's (no isolate's chunk, no vouched line), and its frames put the JavaScript
 * that called it half a megabyte up the stack.
 */
const DEEP_LOOP_WASM = Buffer.from(
  [
    '0061736d01000000', // magic, version 1
    '01050160017f00', // type: (i32) -> ()
    '03020100', // one function of that type
    '07050101660000', // exported as "f"
    '0a18011601407e', // its body: 64 i64 locals
    '200045044003400c000b0b', // if n == 0: loop { br 0 }
    '200041016b10000b', // f(n - 1)
  ].join(''),
  'hex',
);
const DEEP = {
  'worker.js': `import deep from './deep.wasm';
const instance = new WebAssembly.Instance(deep);
export default {
  fetch(request, env, ctx) {
    ctx.waitUntil((async () => { await scheduler.wait(300); instance.exports.f(1000); })());
    return new Response('answered');
  },
};
`,
  'deep.wasm': DEEP_LOOP_WASM,
};

/**
 * A tenant that guessed where the victim's compiled code lies (here: the test reads it off the perf map) and loops in
 * WebAssembly with that address in 32 locals of its frame, where the stack is searched for the innermost return address.
 */
function guesser(victimCode: number): Uint8Array {
  const locals = 32;
  const body = [0x01, locals, 0x7e]; // 32 i64 locals
  for (let local = 1; local <= locals; local++) body.push(0x20, 0x00, 0x21, local); // each set to the parameter
  body.push(0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b); // loop { br 0 }, end
  const leb = (n: number) => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, n >> 7]);
  const code = [0x01, ...leb(body.length), ...body];
  const wasm = Buffer.concat([
    Buffer.from('0061736d01000000', 'hex'), // magic, version 1
    Buffer.from('01050160017e00', 'hex'), // type: (i64) -> ()
    Buffer.from('03020100', 'hex'), // one function of that type
    Buffer.from('07050101660000', 'hex'), // exported as "f"
    Buffer.from([0x0a, ...leb(code.length), ...code]),
  ]);
  return artifactFromFiles({
    'worker.js': `import guess from './guess.wasm';
const instance = new WebAssembly.Instance(guess);
export default {
  fetch(request, env, ctx) {
    ctx.waitUntil((async () => { await scheduler.wait(300); instance.exports.f(${victimCode}n); })());
    return new Response('answered');
  },
};
`,
    'guess.wasm': wasm,
  });
}

const artifacts = new MemoryArtifactSource().put('victim', artifactFromFiles({ 'worker.js': VICTIM })).put('attacker', artifactFromFiles(ATTACKER));

describe('RuntimeEngine asking a stuck thread which app it runs', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-rt-run-'));
  // One shard: every project shares the thread.
  // The shard's memory bound far above what the apps hold but the attack, and no fresh start before it.
  const limits = { cpuLimitMs: 300, shardMemoryMb: 1024, shardRecycleMb: 0 };
  // What reaches the runtime's own log from workerd's output.
  const workerdLines: string[] = [];
  const record = (msg: string, fields?: Record<string, unknown>) => void (fields?.source === 'workerd' && workerdLines.push(msg));
  const log = { debug: record, info: record, warn: record, error: record };
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, limits, quarantine: { initialMs: 60_000 }, log });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'victim', appId: 'web', buildId: 'victim', env: {}, hostnames: [] });
    for (const appId of ['later', 'parser', 'again']) await engine.deploy({ project: 'attacker', appId, buildId: 'attacker', env: {}, hostnames: [] });
    // The attacker's own app with a slow path, and a third tenant's looping app.
    await engine.deploy({ project: 'attacker', appId: 'slow', buildId: 'victim', env: {}, hostnames: [] });
    await engine.deploy({ project: 'rogue', appId: 'later', buildId: 'attacker', env: {}, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs `attack` while an app (the victim's) has one GET in flight, awaiting a timer; answers that request's status. */
  async function withVictimInFlight(attack: () => Promise<void>, key = 'victim/web', thinkMs = 1500): Promise<number> {
    const { pid } = engine.status().shards[0]!;
    const [project, app] = key.split('/');
    const inFlight = send(port, `${app}.${project}.apps.test`, `/think?ms=${thinkMs}`);
    await expect.poll(async () => (await engine.requestStats()).get(key)?.active).toBe(1);
    await attack();
    const status = (await inFlight).status;
    await expect.poll(() => engine.status().shards[0]!.ready && engine.status().shards[0]!.pid !== pid).toBe(true);
    return status;
  }

  /** Deploys `buildId` as `<project>/app` and asks it for `path` (answered `answer`) while the victim has a GET in flight; answers the victim's status. */
  async function attackFrom(project: string, buildId: string, path: string, answer: number): Promise<number> {
    await engine.deploy({ project, appId: 'app', buildId, env: {}, hostnames: [] });
    return withVictimInFlight(async () => {
      expect((await send(port, `app.${project}.apps.test`, path)).status).toBe(answer);
    });
  }

  /** The stop was laid on `attacker` alone: quarantined for `reason`, the victim neither quarantined nor on probation, its GET answered. */
  function expectLaidOn(attacker: string, victimStatus: number, reason = 'CPULimitExceeded'): void {
    expect(engine.limits.quarantine(attacker)).toMatchObject({ reason });
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(engine.limits.onProbation()).toEqual([]);
    expect(victimStatus).toBe(200);
  }

  it("lets an app's console output into the runtime's own log only up to an allowance a second, and says how much it left out", async () => {
    workerdLines.length = 0;
    const started = Date.now();
    // 5,000 lines a request, until a later second's first line says how many were left out.
    await expect
      .poll(
        async () => {
          expect((await send(port, 'later.attacker.apps.test', '/print')).status).toBe(200);
          return workerdLines.includes('workerd printed more lines than the log takes; left out');
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    const printed = workerdLines.filter((line) => line.startsWith('line ')).length;
    expect(printed).toBeGreaterThan(0);
    expect(printed).toBeLessThanOrEqual(200 * seconds);
  });

  it("keeps workerd's perf map and V8's event logs in its own directory", async () => {
    const { pid } = engine.status().shards[0]!;
    expect((await send(port, 'web.victim.apps.test')).status).toBe(200);
    // V8 opens an event log per isolate (`isolate-<address>-<pid>-v8.log`) in the working directory when asked for a perf map.
    expect(readdirSync(process.cwd()).filter((name) => name.endsWith(`-${pid}-v8.log`))).toEqual([]);
    const files = readdirSync(join(dataDir, 'run'), { recursive: true }).map(String);
    expect(files.filter((name) => name.endsWith(`/perf-${pid}.map`))).toHaveLength(1);
    expect(files.filter((name) => name.endsWith(`-${pid}-v8.log`)).length).toBeGreaterThanOrEqual(2); // the dispatcher's isolate, the app's
    expect(existsSync(`/tmp/perf-${pid}.map`)).toBe(false);
  });

  it("lays a loop in waitUntil, after its app's answer, on that app and not on the victim's request in flight", async () => {
    const status = await withVictimInFlight(async () => {
      expect((await send(port, 'later.attacker.apps.test', '/after?ms=300')).status).toBe(200);
    });
    // Its workerd died under it: a GET of an app the stop did not suspect is sent again once the shard restarts.
    expect(status).toBe(200);
    expect(engine.limits.quarantine('attacker/later')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(engine.limits.onProbation()).toEqual([]);
    expect((await send(port, 'web.victim.apps.test')).status).toBe(200);
  });

  it("answers 503 to a lost GET of the stopped code's own project, rather than send it again", async () => {
    // Its project's code stopped the shard: sent again, it could run that code again (a rollout's release, say).
    const status = await withVictimInFlight(async () => {
      expect((await send(port, 'again.attacker.apps.test', '/after?ms=300')).status).toBe(200);
    }, 'attacker/slow');
    expect(engine.limits.quarantine('attacker/again')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(engine.limits.quarantine('attacker/slow')).toBeUndefined(); // its project is not held back (yet)
    expect(status).toBe(503);
  });

  it("does not lay a loop on the victim when the looping tenant's function names forge the victim's code", async () => {
    const { pid } = engine.status().shards[0]!;
    const victim = workerFingerprint({ app: { project: 'victim', appId: 'web', env: {} }, build: { buildId: 'victim' } } as unknown as LiveApp);
    artifacts.put('forger', forger(pid!, victim));
    const status = await attackFrom('forger', 'forger', '/', 503);
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(engine.limits.onProbation()).toEqual([]);
    expect(engine.limits.quarantine('forger/app')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(status).toBe(200);
  });

  it('lays a loop on the app whose isolate runs it when the app names its functions to hide its script', async () => {
    artifacts.put('hider', artifactFromFiles({ 'worker.js': HIDER }));
    const status = await attackFrom('hider', 'hider', '/', 200);
    expectLaidOn('hider/app', status);
  });

  it('lays a loop on its app when the app was deployed again before it began (the old isolate runs on)', async () => {
    await engine.deploy({ project: 'switcher', appId: 'app', buildId: 'attacker', env: {}, hostnames: [] });
    const status = await withVictimInFlight(async () => {
      expect((await send(port, 'app.switcher.apps.test', '/after?ms=800')).status).toBe(200);
      // A new fingerprint: the code the loop will run in is no longer what the app is served with.
      await engine.deploy({ project: 'switcher', appId: 'app', buildId: 'attacker', env: { AGAIN: '1' }, hostnames: [] });
      expect((await send(port, 'app.switcher.apps.test', '/')).status).toBe(200);
    });
    expectLaidOn('switcher/app', status);
  });

  it('lays a loop in WebAssembly deep down the stack on the app whose JavaScript called it', async () => {
    artifacts.put('deep', artifactFromFiles(DEEP));
    const status = await attackFrom('deep', 'deep', '/', 200);
    expectLaidOn('deep/app', status);
  });

  it("does not lay a loop on the victim when the looping tenant's WebAssembly holds an address of the victim's code on the stack", async () => {
    const { pid } = engine.status().shards[0]!;
    expect((await send(port, 'web.victim.apps.test')).status).toBe(200);
    const victim = workerFingerprint({ app: { project: 'victim', appId: 'web', env: {} }, build: { buildId: 'victim' } } as unknown as LiveApp);
    // The guess: inside a function of the victim's that V8's files vouch for (so a word holding it names the victim).
    const runDir = join(dataDir, 'run');
    const map = readdirSync(runDir, { recursive: true })
      .map(String)
      .find((name) => name.endsWith(`/perf-${pid}.map`))!;
    const code = await workerdIsolates(pid!, join(runDir, map, '..'));
    const victimCode = readFileSync(join(runDir, map), 'latin1')
      .split('\n')
      .filter((line) => line.includes(`cw-${victim}/`) && / JS:/.test(line))
      .map((line) => Number.parseInt(line.split(' ')[0]!, 16) + 1)
      .find((address) => code.apps(code.codeIsolates(address)).includes(victim));
    expect(victimCode).toBeDefined();
    artifacts.put('guesser', guesser(victimCode!));
    const status = await attackFrom('guesser', 'guesser', '/', 200);
    expectLaidOn('guesser/app', status);
  });

  it("lays a heap bound passed in waitUntil, after its app's answer, on that app (V8's last collection names the isolate)", async () => {
    const status = await attackFrom('grower', 'attacker', '/grow?ms=300', 200);
    // workerd ended itself, so its requests failed before the verdict: the victim's GET waited for it, and is sent again.
    expectLaidOn('grower/app', status, 'MemoryLimitExceeded');
  });

  it("lays a shard's memory bound passed by ArrayBuffers grown in waitUntil on their app (V8's account of each isolate's memory)", async () => {
    const status = await attackFrom('hoarder', 'attacker', '/buffers?ms=300', 200);
    // The runtime ended that workerd, with its verdict first: the victim's GET is sent again.
    expectLaidOn('hoarder/app', status, 'MemoryLimitExceeded');
  });

  it("lays a shard's memory bound passed by one project's ArrayBuffers spread over three apps on all three", async () => {
    for (const appId of ['one', 'two', 'three']) await engine.deploy({ project: 'swarm', appId, buildId: 'attacker', env: {}, hostnames: [] });
    const status = await withVictimInFlight(async () => {
      // Each grows a third of the bound, too little to stand out alone.
      for (const appId of ['one', 'two', 'three']) expect((await send(port, `${appId}.swarm.apps.test`, '/buffers?ms=300')).status).toBe(200);
    });
    for (const appId of ['one', 'two', 'three']) expect(engine.limits.quarantine(`swarm/${appId}`)).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(status).toBe(200);
  });

  it("lays a shard's memory bound passed by two projects growing ArrayBuffers side by side on both", async () => {
    for (const project of ['left', 'right']) await engine.deploy({ project, appId: 'app', buildId: 'attacker', env: {}, hostnames: [] });
    const status = await withVictimInFlight(async () => {
      for (const project of ['left', 'right']) expect((await send(port, `app.${project}.apps.test`, '/buffers?ms=300')).status).toBe(200);
    });
    for (const project of ['left', 'right']) expect(engine.limits.quarantine(`${project}/app`)).toMatchObject({ reason: 'MemoryLimitExceeded' });
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(engine.limits.onProbation()).toEqual([]);
    expect(status).toBe(200);
  });

  it("lays a shard's memory bound passed by memory V8 does not count (Response bodies kept) on nobody, not on the victim in flight", async () => {
    await engine.deploy({ project: 'keeper', appId: 'app', buildId: 'attacker', env: {}, hostnames: [] });
    // The victim thinks long enough to be in flight whenever the bound is passed.
    const status = await withVictimInFlight(
      async () => {
        expect((await send(port, 'app.keeper.apps.test', '/bodies?ms=300')).status).toBe(200);
      },
      'victim/web',
      10_000,
    );
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(engine.limits.quarantine('keeper/app')).toBeUndefined();
    expect(engine.limits.onProbation()).toEqual([]);
    // Nobody's stop: the victim's GET is sent again, once, to the fresh workerd (the growth went with the old one).
    expect(status).toBe(200);
  });

  it('lays a loop inside a builtin on the app whose code called it', async () => {
    const status = await withVictimInFlight(async () => {
      expect((await send(port, 'parser.attacker.apps.test', '/parse')).status).toBe(503);
    });
    expect(engine.limits.quarantine('attacker/parser')).toMatchObject({ reason: 'CPULimitExceeded' });
    expect(engine.limits.quarantine('victim/web')).toBeUndefined();
    expect(status).toBe(200);
  });

  it('answers 503 to a lost request that changes things (a POST), rather than send it again', async () => {
    const { pid } = engine.status().shards[0]!;
    const posted = send(port, 'web.victim.apps.test', '/think?ms=1500', { method: 'POST' });
    await expect.poll(async () => (await engine.requestStats()).get('victim/web')?.active).toBe(1);
    expect((await send(port, 'later.rogue.apps.test', '/after?ms=100')).status).toBe(200);
    expect((await posted).status).toBe(503);
    expect(engine.limits.quarantine('rogue/later')).toMatchObject({ reason: 'CPULimitExceeded' });
    await expect.poll(() => engine.status().shards[0]!.ready && engine.status().shards[0]!.pid !== pid).toBe(true);
  });
});

describe('inBuildNames', () => {
  it("takes out the directory the runtime loads an app's modules under, and nothing else", () => {
    expect(inBuildNames('Error: x\n    at spin (cw-0123456789abcdef01234567/lib/spin.js:1:30)')).toBe('Error: x\n    at spin (lib/spin.js:1:30)');
    expect(inBuildNames('cw-notafingerprint/x.js and cw-0123456789abcdef0123456/short.js')).toBe('cw-notafingerprint/x.js and cw-0123456789abcdef0123456/short.js');
  });
});
