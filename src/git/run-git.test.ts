import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { GitCommandError, gitSubcommand, runGit, stderrSummary } from './run-git.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-run-git-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pack object's header: type and size, 4 bits then 7 a byte. */
function objectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** A delta's size varint, 7 bits a byte, least significant first. */
function deltaSize(size: number): number[] {
  const bytes: number[] = [];
  do {
    bytes.push((size & 0x7f) | (size >= 128 ? 0x80 : 0));
    size = Math.floor(size / 128);
  } while (size > 0);
  return bytes;
}

/**
 * A 16 KiB pack whose second object, a delta on a 16 MiB blob of zeros, declares and makes an object of about
 * 1 GiB (copies of the whole base): what git allocates whole to hash it (found in review).
 */
function deltaBombPack(): Buffer {
  const baseSize = 16 * 1024 * 1024;
  const copy = 0xffffff;
  const copies = 64;
  const base = Buffer.concat([objectHeader(3, baseSize), deflateSync(Buffer.alloc(baseSize))]);
  const ops = Array.from({ length: copies }, () => [0x80 | 0x10 | 0x20 | 0x40, 0xff, 0xff, 0xff]).flat();
  const delta = Buffer.from([...deltaSize(baseSize), ...deltaSize(copy * copies), ...ops]);
  // OFS_DELTA (6): the base's distance back from this object's start, as a negative offset git decodes.
  const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 2]);
  // The offset's encoding: 7 bits a byte, most significant first, one subtracted at each step.
  let value = base.length;
  const ofs = [value & 0x7f];
  while ((value = Math.floor(value / 128)) > 0) {
    value -= 1;
    ofs.unshift(0x80 | (value & 0x7f));
  }
  const deltaObject = Buffer.concat([objectHeader(6, delta.length), Buffer.from(ofs), deflateSync(delta)]);
  const body = Buffer.concat([header, base, deltaObject]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

describe('runGit', () => {
  it("bounds what one allocation of git may take: a 16 KiB delta declaring 1 GiB is refused (found in review: index-pack held 1 GiB, the container's memory)", async () => {
    const repo = join(dir, 'bomb.git');
    await runGit(['init', '--bare', '-q', repo]);
    const pack = deltaBombPack();
    expect(pack.length).toBeLessThan(64 * 1024);
    const failure = await runGit(['-C', repo, 'index-pack', '--stdin', '--fix-thin', '--fsck-objects'], { stdin: pack }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).message).toMatch(/attempting to allocate \d+ over limit 268435456/);
  });

  it('collects stdout and feeds stdin', async () => {
    const result = await runGit(['hash-object', '--stdin'], { stdin: 'hello\n' });
    expect(result.code).toBe(0);
    expect(result.stdout.toString().trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    const streamed = await runGit(['hash-object', '--stdin'], { stdin: Readable.from([Buffer.from('hel'), Buffer.from('lo\n')]) });
    expect(streamed.stdout.toString().trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it('names the command, the exit code and the last line of stderr when git fails', async () => {
    const failure = await runGit(['-C', dir, 'rev-parse', '--verify', 'no-such-rev']).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitCommandError);
    const e = failure as GitCommandError;
    expect(e.command).toBe('git rev-parse');
    expect(e.code).toBe(128);
    expect(e.message).toMatch(/^git rev-parse exited with code 128: fatal: not a git repository/);
  });

  it('accepts other exit codes when asked', async () => {
    const result = await runGit(['-C', dir, 'rev-parse', '--verify', 'x'], { okCodes: [0, 128] });
    expect(result.code).toBe(128);
    expect(result.stderr).toMatch(/not a git repository/);
  });

  it('kills a process whose output passes the bound', async () => {
    const big = Buffer.alloc(200_000, 'a');
    const failure = await runGit(['cat-file', '--batch'], { stdin: big, maxStdoutBytes: 10 }).catch((e: unknown) => e);
    // cat-file echoes "<input> missing" for the bogus object name: far more than 10 bytes.
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as Error).message).toBe('git cat-file wrote more than 10 bytes of output');
  });

  it('streams stdout to a writable without ending it', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const result = await runGit(['version'], { stdout: sink });
    expect(result.stdout.byteLength).toBe(0);
    expect(Buffer.concat(chunks).toString()).toMatch(/^git version /);
    expect(sink.writableEnded).toBe(false);
  });

  it('rejects when aborted, and when the binary does not exist', async () => {
    const controller = new AbortController();
    const running = runGit(['cat-file', '--batch'], { stdin: new Readable({ read() {} }), signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toThrow('git cat-file was aborted');
    await expect(runGit(['version'], { git: join(dir, 'no-git') })).rejects.toThrow(/^git version could not run: spawn .*ENOENT/);
  });
});

describe('runGit stopping what git started', () => {
  /** Whether the process is gone (or a zombie waiting to be reaped: it runs no more). */
  const gone = (pid: number) => !existsSync(`/proc/${pid}/stat`) || readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;

  it('kills the processes a command started when it is aborted, as upload-pack starts pack-objects', async () => {
    // A stand-in for git that starts a long child of its own and says its pid, then waits for it.
    const fake = join(dir, 'git-with-child');
    writeFileSync(fake, `#!/bin/sh\nsleep 300 &\necho $! > "${dir}/child.pid"\nwait\n`);
    chmodSync(fake, 0o755);
    const controller = new AbortController();
    const running = runGit(['upload-pack'], { git: fake, signal: controller.signal });
    await expect.poll(() => existsSync(join(dir, 'child.pid')) && readFileSync(join(dir, 'child.pid'), 'utf8').trim() !== '').toBe(true);
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    expect(gone(child)).toBe(false);
    controller.abort();
    await expect(running).rejects.toThrow('git upload-pack was aborted');
    await expect.poll(() => gone(child)).toBe(true);
  });
});

describe('gitSubcommand and stderrSummary', () => {
  it('skips global options', () => {
    expect(gitSubcommand(['-C', '/x', '-c', 'a=b', '--no-replace-objects', 'upload-pack', '--stateless-rpc', '.'])).toBe('upload-pack');
    expect(gitSubcommand(['--version'])).toBe('');
  });
  it('quotes the last non-empty line, bounded', () => {
    expect(stderrSummary('hint: x\nfatal: bad\n\n')).toBe('fatal: bad');
    expect(stderrSummary(`fatal: ${'x'.repeat(400)}`)).toHaveLength(301);
    expect(stderrSummary('')).toBe('');
  });
});
