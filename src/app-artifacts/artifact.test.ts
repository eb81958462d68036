import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { constants, zstdCompressSync } from 'node:zlib';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArtifact, readArtifact, type ReadArtifactOptions } from './artifact.ts';
import { ArtifactError, ArtifactTooLargeError } from './errors.ts';
import { artifactFromFiles, artifactOf, tarOf } from '../../runtime-server/engine/testing/artifact-builder.ts';

const WORKER = 'export default { fetch(request, env) { return new Response(env.GREETING); } };\n';

describe('parseArtifact: accepted layouts', () => {
  it('a lone worker.js', async () => {
    const artifact = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER }));
    expect(artifact.main).toBe('worker.js');
    expect(artifact.modules.map((m) => [m.name, m.type])).toEqual([['worker.js', 'esModule']]);
    expect(artifact.assets).toEqual([]);
    expect(artifact.compatibilityDate).toBe('2025-09-01');
    expect(artifact.compatibilityFlags).toEqual([]);
    expect(artifact.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('several modules, assets and cloudwright.json; the entry point comes first', async () => {
    const artifact = await parseArtifact(
      artifactOf([
        { name: './', type: '5' },
        { name: './chunks/', type: '5' },
        { name: './chunks/a.mjs', content: 'export const a = 1;' },
        { name: './lib.cjs', content: 'module.exports = 1;' },
        { name: './data.json', content: '{"x":1}' },
        { name: './notes.txt', content: 'hi' },
        { name: './page.html', content: '<p>' },
        { name: './blob.bin', content: new Uint8Array([0, 255]) },
        { name: './add.wasm', content: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) },
        { name: './server.js', content: WORKER },
        { name: './server.js.map', content: '{}' },
        { name: './assets/_next/static/app.js', content: 'console.log(1)' },
        { name: './assets/_headers', content: '/*\n  X-Frame-Options: DENY\n' },
        {
          name: './cloudwright.json',
          content: JSON.stringify({
            main: 'server.js',
            compatibility_date: '2025-04-01',
            compatibility_flags: ['nodejs_compat', 'nodejs_compat'],
            assets: { not_found_handling: 'single-page-application', run_worker_first: ['/api/*'] },
          }),
        },
      ]),
      { maxCompatibilityDate: '2026-11-17' },
    );
    expect(artifact.main).toBe('server.js');
    expect(artifact.modules.map((m) => [m.name, m.type])).toEqual([
      ['server.js', 'esModule'],
      ['chunks/a.mjs', 'esModule'],
      ['lib.cjs', 'commonJsModule'],
      ['data.json', 'json'],
      ['notes.txt', 'text'],
      ['page.html', 'text'],
      ['blob.bin', 'data'],
      ['add.wasm', 'wasm'],
    ]);
    expect(artifact.assets.map((a) => a.path)).toEqual(['_next/static/app.js', '_headers']);
    expect(artifact.assetConfig).toEqual({
      not_found_handling: 'single-page-application',
      run_worker_first: ['/api/*'],
      headers: '/*\n  X-Frame-Options: DENY\n',
    });
    expect(artifact.compatibilityDate).toBe('2025-04-01');
    expect(artifact.compatibilityFlags).toEqual(['nodejs_compat']);
  });

  it('index.js is the entry point when there is no worker.js', async () => {
    expect((await parseArtifact(artifactFromFiles({ 'index.js': WORKER, 'util.js': '' }))).main).toBe('index.js');
  });

  it('long names through pax headers', async () => {
    const name = `${'deep/'.repeat(30)}mod.js`;
    const artifact = await parseArtifact(
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name, content: '', pax: true },
      ]),
    );
    expect(artifact.modules.map((m) => m.name)).toContain(name);
  });

  it('a directory named without its slash, and pax records that only describe an entry', async () => {
    const artifact = await parseArtifact(
      artifactOf([
        { name: 'worker.js', content: WORKER, paxRecords: { mtime: '1764000000.5', uid: '1000', uname: 'ada', 'SCHILY.xattr.user.note': 'x', 'LIBARCHIVE.creationtime': '1764000000' } },
        { name: 'assets/lib', type: '5' },
        { name: 'assets/li', content: 'x' },
        { name: 'assets/lib/a.css', content: 'a{}' },
      ]),
    );
    expect(artifact.assets.map((a) => a.path).sort()).toEqual(['li', 'lib/a.css']);
  });

  describe('archives written by the tar and zstd command-line tools', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-artifact-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const longAsset = `assets/${'very-long-directory-name/'.repeat(6)}file.css`;
    for (const [file, content] of Object.entries({ 'worker.js': WORKER, 'chunks/x.js': 'export {}', [longAsset]: 'a{}' })) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), content);
    }
    it.each(['gnu', 'posix', 'ustar'])('tar --format=%s | zstd', async (format) => {
      const files = format === 'ustar' ? ['worker.js', 'chunks'] : ['.'];
      const tar = execFileSync('tar', [`--format=${format}`, '-C', dir, '-cf', '-', ...files]);
      const artifact = await parseArtifact(execFileSync('zstd', ['-q', '-c'], { input: tar }));
      expect(artifact.modules.map((m) => m.name).sort()).toEqual(['chunks/x.js', 'worker.js']);
      if (format !== 'ustar') expect(artifact.assets.map((a) => a.path)).toEqual([longAsset.slice('assets/'.length)]);
    });
    it('tar --sparse --format=posix of a file with holes is refused, not served as its sparse map', async () => {
      const sparse = mkdtempSync(join(dir, 'sparse-'));
      writeFileSync(join(sparse, 'worker.js'), WORKER);
      mkdirSync(join(sparse, 'assets'));
      execFileSync('truncate', ['-s', '1M', join(sparse, 'assets', 'big.bin')]);
      execFileSync('sh', ['-c', 'printf data >> "$1"', 'sh', join(sparse, 'assets', 'big.bin')]);
      const tar = execFileSync('tar', ['--sparse', '--format=posix', '-C', sparse, '-cf', '-', '.']);
      await expect(parseArtifact(execFileSync('zstd', ['-q', '-c'], { input: tar }))).rejects.toThrow(/pax record "GNU\.sparse\.[a-z]+" is not supported \(a sparse file: archive it whole/);
    });
  });
});

describe('parseArtifact: refused artifacts (400, ArtifactError)', () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['empty upload', new Uint8Array(), /zstd-compressed tar/],
    ['gzip instead of zstd', gzipSync(tarOf([{ name: 'worker.js', content: WORKER }])), /this is gzip data/],
    ['corrupt zstd', Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5]), /not a valid zstd stream/],
    ['zstd of something that is not tar', zstdCompressSync(Buffer.from('hello world'.repeat(100))), /not a tar archive/],
    ['empty tar', zstdCompressSync(new Uint8Array(1024)), /no entries/],
    ['truncated tar', zstdCompressSync(tarOf([{ name: 'worker.js', content: WORKER.repeat(10) }]).subarray(0, 700)), /truncated/],
    ['bad checksum', zstdCompressSync(corruptChecksum(tarOf([{ name: 'worker.js', content: WORKER }]))), /checksum/],
    [
      '.. traversal',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: '../evil.js', content: '' },
      ]),
      /leaves the archive/,
    ],
    [
      'nested traversal',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'a/../../evil.js', content: '' },
      ]),
      /leaves the archive/,
    ],
    [
      'traversal in a pax path',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'x/../../e.js', content: '', pax: true },
      ]),
      /leaves the archive/,
    ],
    ['absolute path', artifactOf([{ name: '/etc/passwd.js', content: '' }]), /is absolute/],
    ['symlink', artifactOf([{ name: 'worker.js', type: '2', linkname: '/etc/passwd' }]), /symbolic link/],
    [
      'hard link',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'b.js', type: '1', linkname: 'worker.js' },
      ]),
      /hard link/,
    ],
    [
      'character device',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'null', type: '3' },
      ]),
      /device/,
    ],
    [
      'FIFO',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'p', type: '6' },
      ]),
      /FIFO/,
    ],
    [
      'backslash',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'a\\b.js', content: '' },
      ]),
      /backslash/,
    ],
    [
      'duplicate entry',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: './worker.js', content: WORKER },
      ]),
      /appears twice/,
    ],
    ['a file that is also a directory', artifactFromFiles({ 'worker.js': WORKER, 'assets/lib': 'x', 'assets/lib/a.css': '' }), /"assets\/lib" is both a file and a directory/],
    ['a directory that is also a file', artifactFromFiles({ 'worker.js': WORKER, 'assets/lib/a.css': '', 'assets/lib': 'x' }), /"assets\/lib" is both a file and a directory/],
    // The type flag makes the directory, with or without the trailing slash (review-165 F6).
    [
      'a directory named without its slash that is also a file',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name: 'assets/lib', type: '5' },
        { name: 'assets/lib', content: 'x' },
      ]),
      /"assets\/lib" is both a file and a directory/,
    ],
    // GNU's sparse files keep their map and data as the content, under another name: refused, not served as that (F8).
    [
      'a GNU sparse file',
      artifactOf([
        { name: 'worker.js', content: WORKER },
        {
          name: 'assets/GNUSparseFile.1/big.bin',
          content: 'map and data',
          paxRecords: { 'GNU.sparse.major': '1', 'GNU.sparse.minor': '0', 'GNU.sparse.name': 'assets/big.bin', 'GNU.sparse.realsize': '1048576' },
        },
      ]),
      /pax record "GNU.sparse.major" is not supported \(a sparse file: archive it whole/,
    ],
    ['an unknown pax record', artifactOf([{ name: 'worker.js', content: WORKER, paxRecords: { 'VENDOR.meaning': 'x' } }]), /pax record "VENDOR.meaning" is not supported/],
    // Read without a 64 Ki-argument spread (a stack overflow under a smaller stack, review-165 F9).
    ['a pax record length without an end', artifactOf([{ name: 'worker.js', content: WORKER, paxRaw: new Uint8Array(60_000).fill(0x31) }]), /bad pax record length/],
    ['no entry point', artifactFromFiles({ 'server.js': WORKER }), /no entry point: add worker.js/],
    ['main names a missing module', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"main":"dist/w.js"}' }), /names main "dist\/w.js"/],
    ['entry point that is not an ES module', artifactFromFiles({ 'w.cjs': '', 'cloudwright.json': '{"main":"w.cjs"}' }), /must be an ES module/],
    ['file of unknown type outside assets/', artifactFromFiles({ 'worker.js': WORKER, 'logo.png': 'x' }), /"logo.png" is not a module.*assets\//],
    ['module that is not UTF-8', artifactFromFiles({ 'worker.js': new Uint8Array([0xff, 0xfe]) }), /not valid UTF-8/],
    ['JSON module that does not parse', artifactFromFiles({ 'worker.js': WORKER, 'd.json': '{' }), /"d.json" is not valid JSON/],
    // JSON.parse refuses a byte-order mark: one the check let through never loaded (review-165 F7).
    ['JSON module with a byte-order mark', artifactFromFiles({ 'worker.js': WORKER, 'd.json': '\uFEFF{"a":1}' }), /"d.json" is not valid JSON/],
    ['cloudwright.json that does not parse', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{' }), /not valid JSON/],
    ['cloudwright.json with an unknown field', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"compat_date":"x"}' }), /unknown field "compat_date"/],
    ['a bad compatibility date', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"compatibility_date":"2025-02-30"}' }), /must be a date/],
    [
      'a compatibility date newer than workerd',
      artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"compatibility_date":"2099-01-01"}' }),
      /newer than the runtime supports \(2026-11-17\)/,
    ],
    ['a bad compatibility flag', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"compatibility_flags":["Node JS"]}' }), /not a flag name/],
    ['a bad assets option', artifactFromFiles({ 'worker.js': WORKER, 'cloudwright.json': '{"assets":{"html_handling":"x"}}' }), /html_handling must be one of/],
  ];
  it.each(cases)('%s', async (_name, bytes, message) => {
    const error = await parseArtifact(bytes, { maxCompatibilityDate: '2026-11-17' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as ArtifactError).status).toBe(400);
    expect((error as Error).message).toMatch(message);
  });

  it('directories its paths imply count with its files (review-165 F1: each of 20,000 files implied 500, 1.2 GB in the reader, 10 million mkdirs)', async () => {
    const deep = 'a/'.repeat(505);
    const files = Array.from({ length: 2000 }, (_, i) => ({ name: `${String(i).padStart(4, '0')}/${deep}x.txt`, content: '', pax: true }));
    const error = await parseArtifact(artifactOf([{ name: 'worker.js', content: WORKER }, ...files])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as Error).message).toMatch(/more than 40000 files and directories/);
    // Directories files share count once; named ones are the same as implied ones.
    const shared = Array.from({ length: 3000 }, (_, i) => ({ name: `assets/${deep}f${i}`, content: '', pax: true }));
    expect((await parseArtifact(artifactOf([{ name: 'worker.js', content: WORKER }, { name: 'assets/a/', type: '5' }, ...shared]))).assets).toHaveLength(3000);
  });
});

describe('parseArtifact: limits (413, ArtifactTooLargeError)', () => {
  const big = 'x'.repeat(10_000);
  const cases: [string, Uint8Array, object, string, number][] = [
    ['compressed size', artifactFromFiles({ 'worker.js': WORKER }), { maxCompressedBytes: 10 }, 'compressedBytes', 10],
    ['uncompressed size (a zstd bomb stops there)', artifactFromFiles({ 'worker.js': big }), { maxUncompressedBytes: 4096 }, 'uncompressedBytes', 4096],
    ['one file', artifactFromFiles({ 'worker.js': WORKER, 'assets/a.css': big }), { maxFileBytes: 1000 }, 'fileBytes', 1000],
    ['file count', artifactFromFiles({ 'worker.js': WORKER, 'assets/a': '', 'assets/b': '' }), { maxFiles: 2 }, 'files', 2],
  ];
  it.each(cases)('%s', async (_name, bytes, limits, limit, maximum) => {
    const error = await parseArtifact(bytes, { limits }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArtifactTooLargeError);
    expect(error).toMatchObject({ status: 413, limit, maximum });
  });

  it('stops reading the upload at the compressed limit', async () => {
    let pulled = 0;
    const artifact = artifactFromFiles({ 'worker.js': 'x'.repeat(50_000) });
    async function* body() {
      for (let at = 0; at < artifact.length; at += 20) {
        pulled += 1;
        yield artifact.subarray(at, at + 20);
      }
    }
    await expect(readArtifact(body(), { limits: { maxCompressedBytes: 50 } })).rejects.toMatchObject({ status: 413, limit: 'compressedBytes', maximum: 50 });
    expect(pulled).toBe(3);
  });

  it('the modules together, assets left out', async () => {
    const error = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'a.txt': big, 'assets/b.css': big }), { limits: { maxModuleBytes: 5000 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413, limit: 'moduleBytes', maximum: 5000 });
    expect((await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'assets/b.css': big }), { limits: { maxModuleBytes: 5000 } })).modules).toHaveLength(1);
  });

  it('the modules as workerd is handed them: text with its JSON escapes, binary in base64', async () => {
    /** What a text module costs as JSON, in UTF-8 bytes: what the runtime sends workerd. */
    const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;
    const room = 5000;
    const limits = { maxModuleBytes: jsonBytes(WORKER) + room };
    const nul = String.fromCharCode(0).repeat(1000); // 1000 bytes in the archive, 6000 as JSON
    await expect(parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'n.txt': nul }), { limits })).rejects.toMatchObject({ status: 413, limit: 'moduleBytes' });
    expect((await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'n.txt': 'x'.repeat(room) }), { limits })).modules).toHaveLength(2);
    await expect(parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'b.bin': new Uint8Array((room / 4) * 3 + 3) }), { limits })).rejects.toMatchObject({ limit: 'moduleBytes' });
    const odd = `${String.fromCharCode(0, 8, 9, 10, 12, 13, 31, 34, 92)}é`;
    const exactly = { maxModuleBytes: jsonBytes(WORKER) + jsonBytes(odd) };
    expect((await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'e.txt': odd }), { limits: exactly })).modules).toHaveLength(2);
    const short = { maxModuleBytes: exactly.maxModuleBytes - 1 };
    await expect(parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'e.txt': odd }), { limits: short })).rejects.toMatchObject({ limit: 'moduleBytes' });
  });

  it('a configuration file read whole', async () => {
    const error = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'assets/_redirects': 'x'.repeat(1024 * 1024 + 1) })).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413, limit: 'configBytes', maximum: 1024 * 1024 });
    expect((error as Error).message).toMatch(/"assets\/_redirects" is larger than 1048576 bytes/);
  });

  it('a file or directory name longer than a file system allows (found in review: accepted, then failing every unpack)', async () => {
    // Long names as `tar --format=posix` writes them, in a pax header.
    const withFile = (name: string) =>
      artifactOf([
        { name: 'worker.js', content: WORKER },
        { name, content: 'x', pax: true },
      ]);
    for (const path of [`assets/${'n'.repeat(256)}`, `assets/${'d'.repeat(256)}/x.txt`, `assets/${'é'.repeat(128)}.txt`]) {
      const message = await parseArtifact(withFile(path)).catch((e: unknown) => (e as Error).message);
      expect(message, path).toMatch(/has a name longer than 255 bytes/);
    }
    expect((await parseArtifact(withFile(`assets/${'n'.repeat(255)}`))).assets).toHaveLength(1);
  });

  it("asset rules past Cloudflare's limits, which every workerd of the shard would carry (found in review: 30 apps of 1 MiB rules stopped a shard at every start)", async () => {
    const refused = (files: Record<string, string>) => parseArtifact(artifactFromFiles({ 'worker.js': WORKER, ...files })).catch((e: unknown) => (e as Error).message);
    const statics = (n: number) => Array.from({ length: n }, (_, i) => `/r${i} /d${i} 301`).join('\n');
    const dynamics = (n: number) => Array.from({ length: n }, (_, i) => `/r${i}/* /d${i}/:splat 301`).join('\n');
    expect(await refused({ 'assets/_redirects': statics(2101) })).toBe('assets/_redirects has 2101 rules; at most 2100 are allowed');
    expect(await refused({ 'assets/_redirects': dynamics(101) })).toBe('assets/_redirects has 101 rules with a wildcard or placeholder; at most 100 are allowed');
    expect(await refused({ 'assets/_redirects': `/a ${'b'.repeat(1000)} 301` })).toBe('assets/_redirects line 1 is 1007 characters; at most 1000 are allowed');
    expect(await refused({ 'assets/_redirects': `# ${'x'.repeat(900)}\n`.repeat(300) })).toMatch(/^assets\/_redirects is \d+ bytes; at most 262144 are allowed$/);
    const headerRules = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}\n  X-A: 1\n  X-B: 2`).join('\n');
    expect(await refused({ 'assets/_headers': headerRules(101) })).toBe('assets/_headers has 101 rules; at most 100 are allowed');
    // At the limits, and with comments and blank lines beside them, a build deploys.
    const artifact = await parseArtifact(artifactFromFiles({ 'worker.js': WORKER, 'assets/_redirects': `# moved\n\n${statics(2000)}\n${dynamics(100)}`, 'assets/_headers': headerRules(100) }));
    expect(artifact.assets.map((a) => a.path).sort()).toEqual(['_headers', '_redirects']);
  });
});

describe('readArtifact: streaming', () => {
  const big = 'x'.repeat(10_000);
  it('hands each module and asset to the sink as it is read, with what the archive holds', async () => {
    const files: [string, string, string][] = [];
    const artifact = await readArtifact([artifactFromFiles({ 'worker.js': WORKER, 'data.json': '{"a":[1,2]}', 'assets/index.html': '<p>hi', 'x.js.map': '{}', 'cloudwright.json': '{}' })], {
      sink: {
        async file(kind, path, _size, content) {
          const chunks: Uint8Array[] = [];
          for await (const chunk of content) chunks.push(chunk);
          files.push([kind, path, Buffer.concat(chunks).toString()]);
        },
      },
    });
    expect(files).toEqual([
      ['module', 'worker.js', WORKER],
      ['module', 'data.json', '{"a":[1,2]}'],
      ['asset', 'index.html', '<p>hi'],
    ]);
    expect(artifact.unpackedBytes).toBe(WORKER.length + 11 + 5);
  });

  it('the sink sees a bad module refused as it reads it, and the artifact is refused', async () => {
    let failed: unknown;
    const error = await readArtifact([artifactFromFiles({ 'worker.js': WORKER, 'd.json': '[1,2' })], {
      sink: {
        async file(_kind, _path, _size, content) {
          try {
            for await (const _ of content);
          } catch (err) {
            failed = err;
            throw err;
          }
        },
      },
    }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ArtifactError);
    expect(error).toBe(failed);
    expect((error as Error).message).toMatch(/"d.json" is not valid JSON/);
  });

  it('the budget is asked for each file before its content is read, and may refuse it', async () => {
    const asked: number[] = [];
    const refusal = new Error('over budget');
    const error = await readArtifact([artifactFromFiles({ 'worker.js': WORKER, 'assets/a': big, 'assets/b': big })], {
      budget: {
        spend(bytes) {
          asked.push(bytes);
          if (asked.length === 3) throw refusal;
        },
      },
    }).catch((e: unknown) => e);
    expect(error).toBe(refusal);
    expect(asked).toEqual([WORKER.length, 10_000, 10_000]);
  });

  it('lets the source go when it refuses the artifact part way (review-165 F10: a bucket response left unread held its connection)', async () => {
    const noise = new Uint8Array(4 * 1024 * 1024).map(() => Math.floor(Math.random() * 256)); // incompressible: many chunks
    const cases: [string, Uint8Array, ReadArtifactOptions][] = [
      [
        'a file of unknown type first',
        artifactOf([
          { name: 'logo.png', content: 'x' },
          { name: 'assets/n', content: noise },
        ]),
        {},
      ],
      ['a budget refusal', artifactFromFiles({ 'worker.js': WORKER, 'assets/n': noise }), { budget: { spend: (bytes) => void (bytes > 1000 && raise()) } }],
      ['a sink failure', artifactFromFiles({ 'worker.js': WORKER, 'assets/n': noise }), { sink: { file: async (kind) => void (kind === 'asset' && raise()) } }],
    ];
    for (const [name, bytes, options] of cases) {
      const source = closable(bytes);
      await expect(readArtifact(source, options), name).rejects.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(source.closed, name).toBe(true);
      expect(source.sent, name).toBeLessThan(bytes.length);
    }
  });

  it('refuses a zstd window past 8 MiB (--long, --ultra), which would cost that much memory to decode', async () => {
    const tar = tarOf([
      { name: 'worker.js', content: WORKER },
      { name: 'assets/big', content: new Uint8Array(20 * 1024 * 1024) },
    ]);
    const long = zstdCompressSync(tar, { params: { [constants.ZSTD_c_windowLog]: 25 } });
    const error = await parseArtifact(long).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as Error).message).toMatch(/needs a zstd window larger than 8 MiB/);
    expect((await parseArtifact(zstdCompressSync(tar, { params: { [constants.ZSTD_c_compressionLevel]: 19 } }))).assets).toHaveLength(1);
  });
});

function corruptChecksum(tar: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(tar);
  copy[0] = (copy[0] ?? 0) ^ 1;
  return copy;
}

function raise(): never {
  throw new Error('refused');
}

/** `bytes` in 64 KiB chunks, as a stream that says whether it was ended early (its `finally`) and how much it gave. */
function closable(bytes: Uint8Array): AsyncIterable<Uint8Array> & { closed: boolean; sent: number } {
  const state = { closed: false, sent: 0 };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (let at = 0; at < bytes.length; at += 65_536) {
        const chunk = bytes.subarray(at, at + 65_536);
        state.sent += chunk.length;
        yield chunk;
      }
    } finally {
      state.closed = true;
    }
  }
  return Object.assign(state, { [Symbol.asyncIterator]: chunks });
}
