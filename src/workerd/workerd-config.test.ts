import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capnpString } from './capnp-text.ts';
import { silentRuntimeLogger } from './log.ts';
import { effectiveFlags, renderWorkerdConfig, type WorkerdDeployment } from './workerd-config.ts';
import { resolveWorkerdBinary, WorkerdProcess } from './workerd-process.ts';

const base: WorkerdDeployment = {
  project: 'demo',
  appId: 'hello',
  buildId: 'b1',
  socket: 'unix:/run/cw/g1/0.sock',
  modules: [
    { name: 'worker.js', type: 'esModule', embedPath: '../../builds/b1/m/worker.js' },
    { name: 'add.wasm', type: 'wasm', embedPath: '../../builds/b1/m/add.wasm' },
  ],
  env: { B: '2', A: '1' },
  compatibilityDate: '2025-09-01',
  compatibilityFlags: [],
};

describe('capnpString', () => {
  it.each([
    ['plain', 'plain', '"plain"'],
    ['quotes', 'he said "hi"', '"he said \\"hi\\""'],
    ['backslash', 'a\\b', '"a\\\\b"'],
    ['newlines and tabs', 'a\nb\r\nc\td', '"a\\nb\\r\\nc\\td"'],
    ['other control characters', '\u0000\u0001\u001f\u007f', '"\\x00\\x01\\x1f\\x7f"'],
    ['non-ASCII stays UTF-8', 'é ✓ 🚀', '"é ✓ 🚀"'],
    ['capnp syntax is inert', '"), (name = "x', '"\\"), (name = \\"x"'],
  ])('%s', (_name, input, expected) => {
    expect(capnpString(input)).toBe(expected);
  });
});

describe('effectiveFlags', () => {
  it.each([
    [[], []],
    [['nodejs_compat'], ['nodejs_compat', 'nodejs_compat_populate_process_env']],
    [['nodejs_compat_v2'], ['nodejs_compat_v2', 'nodejs_compat_populate_process_env']],
    [
      ['nodejs_compat', 'nodejs_compat_do_not_populate_process_env'],
      ['nodejs_compat', 'nodejs_compat_do_not_populate_process_env'],
    ],
    [
      ['nodejs_compat', 'nodejs_compat_populate_process_env'],
      ['nodejs_compat', 'nodejs_compat_populate_process_env'],
    ],
    [['streams_enable_constructors'], ['streams_enable_constructors']],
  ])('%j → %j', (flags, expected) => {
    expect(effectiveFlags(flags)).toEqual(expected);
  });
});

describe('renderWorkerdConfig', () => {
  it('renders a worker service per deployment, its modules in order, env sorted as text bindings, and a socket', () => {
    const { text, experimental, sockets } = renderWorkerdConfig({ deployments: [base], healthSocket: 'unix:/run/cw/g1/h.sock' });
    expect(experimental).toBe(false);
    expect([...sockets]).toEqual([
      ['s0', 0],
      ['health', 'health'],
    ]);
    expect(text).toContain('using Workerd = import "/workerd/workerd.capnp";');
    expect(text).toContain('(name = "worker:demo/hello@b1", worker = (');
    expect(text).toMatch(/\(name = "worker.js", esModule = embed "..\/..\/builds\/b1\/m\/worker.js"\),\n\s+\(name = "add.wasm", wasm = embed/);
    expect(text).toContain('compatibilityDate = "2025-09-01"');
    expect(text).toMatch(/\(name = "A", text = "1"\),\n\s+\(name = "B", text = "2"\)/);
    expect(text).toContain('(name = "s0", address = "unix:/run/cw/g1/0.sock", http = (forwardedProtoHeader = "x-forwarded-proto"), service = "worker:demo/hello@b1")');
    expect(text).toContain('service = "cw-health"');
  });

  it('adds nodejs_compat_populate_process_env to nodejs_compat builds', () => {
    const { text } = renderWorkerdConfig({ deployments: [{ ...base, compatibilityFlags: ['nodejs_compat'] }] });
    expect(text).toContain('compatibilityFlags = ["nodejs_compat", "nodejs_compat_populate_process_env"]');
  });

  it('fronts a deployment with assets by an assets service, bound to the worker as ASSETS', () => {
    const { text, experimental } = renderWorkerdConfig({
      deployments: [{ ...base, assets: { directory: '/data/builds/b1/assets', config: { html_handling: 'none', headers: '/*\n  X: "y"\n' } } }],
    });
    expect(experimental).toBe(true);
    expect(text).toContain('(name = "ASSETS", service = (name = "assets:demo/hello@b1", entrypoint = "AssetWorker"))');
    expect(text).toContain(
      '(name = "assets:demo/hello@b1", assets = (path = "/data/builds/b1/assets", config = "{\\"html_handling\\":\\"none\\",\\"headers\\":\\"/*\\\\n  X: \\\\\\"y\\\\\\"\\\\n\\"}", userWorker = "worker:demo/hello@b1"))',
    );
    expect(text).toContain('service = "assets:demo/hello@b1")');
  });

  it('is deterministic', () => {
    expect(renderWorkerdConfig({ deployments: [base] }).text).toBe(renderWorkerdConfig({ deployments: [base] }).text);
  });
});

describe('renderWorkerdConfig with the real workerd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cw-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers tricky env values verbatim to env and process.env', async () => {
    const env = {
      QUOTES: 'he said "hi" and \'bye\'',
      LINES: 'line1\nline2\r\nline3',
      BACKSLASH: 'C:\\path\\n',
      CONTROL: 'nul\u0000bell\u0007del\u007f',
      UNICODE: 'é ✓ 🚀',
      CAPNP: '"), (name = "EVIL", text = "x',
      EMPTY: '',
    };
    writeFileSync(join(dir, 'worker.js'), 'export default { fetch(request, env) { return Response.json({ env: { ...env }, processEnv: { ...process.env }, url: request.url }); } };');
    const socketPath = join(dir, 'app.sock');
    const config = renderWorkerdConfig({
      deployments: [
        {
          ...base,
          socket: `unix:${socketPath}`,
          modules: [{ name: 'worker.js', type: 'esModule', embedPath: 'worker.js' }],
          env,
          compatibilityDate: '2024-09-23',
          compatibilityFlags: ['nodejs_compat'],
        },
      ],
    });
    writeFileSync(join(dir, 'config.capnp'), config.text);
    const proc = await WorkerdProcess.start({
      binary: resolveWorkerdBinary(),
      configPath: join(dir, 'config.capnp'),
      experimental: config.experimental,
      sockets: config.sockets.keys(),
      startTimeoutMs: 10_000,
      log: silentRuntimeLogger,
    });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        request({ socketPath, path: '/x', headers: { host: 'hello.demo.test', 'x-forwarded-proto': 'https' } }, (res) => {
          let data = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (data += c))
            .on('end', () => resolve(data));
        })
          .on('error', reject)
          .end();
      });
      const parsed = JSON.parse(body) as { env: Record<string, string>; processEnv: Record<string, string>; url: string };
      expect(parsed.env).toEqual(env);
      expect(parsed.processEnv).toEqual(env);
      expect(parsed.url).toBe('https://hello.demo.test/x');
    } finally {
      await proc.stop();
    }
  });
});
