// A cw-runtime killed outright (SIGKILL: no exit handler runs) must not leave its workerd serving: the kernel
// kills workerd when its parent dies. Tried for real: a Node process starts workerd and is then killed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWorkerdBinary } from '../../src/app-artifacts/workerd-binary.ts';
import { WorkerdProcess, workerdCommand, workerdOpenFiles } from './workerd-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-workerd-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (compatibilityDate = "2024-01-01", modules = [(name = "w.js", esModule = "export default { fetch() { return new Response('ok') } }")]))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
`;

/** Whether `pid` is a process that still runs (a zombie has ended: it only waits to be reaped). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('workerd’s life is tied to its parent’s', () => {
  it('starts workerd under setpriv with a parent-death signal, its limit on open files set, its standard output flushed a line at a time', () => {
    expect(workerdCommand('/bin/workerd', ['serve', 'c.capnp'], 4096)).toEqual([
      '/usr/bin/setpriv',
      ['--pdeathsig', 'KILL', '--', '/usr/bin/prlimit', '--nofile=4096:4096', '--', '/usr/bin/stdbuf', '-oL', '/bin/workerd', 'serve', 'c.capnp'],
    ]);
    expect(workerdCommand('/bin/workerd', ['serve', 'c.capnp'], undefined)).toEqual(['/usr/bin/setpriv', ['--pdeathsig', 'KILL', '--', '/usr/bin/stdbuf', '-oL', '/bin/workerd', 'serve', 'c.capnp']]);
  });

  it('workerd ends when the process that started it is killed with SIGKILL', { timeout: 30_000 }, async () => {
    writeFileSync(join(dir, 'config.capnp'), CONFIG);
    const root = resolve(import.meta.dirname, '../..');
    const script = `
      import { WorkerdProcess } from '${root}/runtime-server/engine/workerd-process.ts';
      import { resolveWorkerdBinary } from '${root}/src/app-artifacts/workerd-binary.ts';
      const log = { debug() {}, info() {}, warn() {}, error() {} };
      const proc = await WorkerdProcess.start({ binary: resolveWorkerdBinary(), configPath: '${join(dir, 'config.capnp')}', experimental: false, sockets: ['http'], startTimeoutMs: 20000, log });
      console.log(proc.pid);
      setInterval(() => {}, 60000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((done) => createInterface({ input: parent.stdout }).once('line', done));
    const workerd = Number(line);
    expect(running(workerd)).toBe(true);
    const gone = new Promise((done) => parent.once('exit', done));
    parent.kill('SIGKILL');
    await gone;
    await expect.poll(() => running(workerd), { timeout: 10_000, interval: 50 }).toBe(false);
  });
});

describe('workerd’s limit on open files (found in review-183: out of descriptors, workerd crashed, laid on nobody)', () => {
  it('is the hard limit this process may give, at most 2^20, whatever soft limit the container set', () => {
    const limits = (soft: string, hard: string) => `Limit Soft Limit Hard Limit Units\nMax open files            ${soft}                 ${hard}                 files\n`;
    expect(workerdOpenFiles(limits('1024', '524288'))).toBe(524288);
    expect(workerdOpenFiles(limits('20000', '20000'))).toBe(20000);
    expect(workerdOpenFiles(limits('1024', '4194304'))).toBe(1 << 20);
    expect(workerdOpenFiles(limits('unlimited', 'unlimited'))).toBe(1 << 20);
    expect(workerdOpenFiles('')).toBeUndefined();
  });

  it('is set on the workerd started, not inherited', { timeout: 30_000 }, async () => {
    writeFileSync(join(dir, 'config.capnp'), CONFIG);
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const proc = await WorkerdProcess.start({
      binary: resolveWorkerdBinary(),
      configPath: join(dir, 'config.capnp'),
      experimental: false,
      sockets: ['http'],
      startTimeoutMs: 20_000,
      log,
      openFiles: 4321,
    });
    try {
      const line = readFileSync(`/proc/${proc.pid}/limits`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('Max open files'));
      expect(line?.split(/\s+/).slice(3, 5)).toEqual(['4321', '4321']);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
