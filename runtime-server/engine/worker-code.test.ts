import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { JsonSyntax, JsonSyntaxError } from '../../src/app-artifacts/json-syntax.ts';
import { JsonText, workerCode, workerCodeText, type LiveApp, type WorkerCodeJson } from './worker-code.ts';

const code = (modules: WorkerCodeJson['modules'], env: Record<string, string> = {}): WorkerCodeJson => ({
  compatibilityDate: '2025-09-01',
  compatibilityFlags: [],
  mainModule: 'worker.js',
  modules,
  env,
});

describe('workerCodeText', () => {
  it('puts each JSON module’s text in place as it is, and leaves every other string alone', () => {
    const text = workerCodeText(
      code(
        {
          'worker.js': { js: 'export default {}' },
          'a.json': { json: new JsonText(' [ {"x": "$& $1"}, 2.5e3 ]\n') },
          'b.json': { json: new JsonText('"\\u0000cw-json-0123456789abcdef:0"') },
        },
        // What a mark looks like without the process's own random part: a tenant's string, not a mark.
        { MARK: '\u0000cw-json-0123456789abcdef:0' },
      ),
    );
    expect(text).toContain(' [ {"x": "$& $1"}, 2.5e3 ]\n');
    expect(JSON.parse(text)).toEqual(
      code(
        { 'worker.js': { js: 'export default {}' }, 'a.json': { json: [{ x: '$& $1' }, 2500] }, 'b.json': { json: '\u0000cw-json-0123456789abcdef:0' } },
        { MARK: '\u0000cw-json-0123456789abcdef:0' },
      ),
    );
  });

  it('checks a JSON module again as it reads it: text that is not one JSON value is never spliced into the code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-json-module-'));
    try {
      const file = join(dir, 'd.json');
      writeFileSync(file, '1, "mainModule": "evil.js"');
      const live = {
        app: { project: 'p', appId: 'a', buildId: 'b', env: {}, hostnames: [] },
        build: { buildId: 'b', digest: '', unpackedBytes: 0, modules: [{ name: 'd.json', type: 'json' as const, file }], assetConfig: {}, compatibilityDate: '2025-09-01', compatibilityFlags: [] },
      };
      await expect(workerCode(live as unknown as LiveApp)).rejects.toBeInstanceOf(JsonSyntaxError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks a JSON module file once in the process, not at every load of its isolate (review-167 F11)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-json-module-'));
    const ends = vi.spyOn(JsonSyntax.prototype, 'end');
    try {
      const file = join(dir, 'd.json');
      writeFileSync(file, '{"a": [1, 2, 3]}');
      const live = {
        app: { project: 'p', appId: 'a', buildId: 'b', env: {}, hostnames: [] },
        build: { buildId: 'b', digest: '', unpackedBytes: 0, modules: [{ name: 'd.json', type: 'json' as const, file }], assetConfig: {}, compatibilityDate: '2025-09-01', compatibilityFlags: [] },
      };
      for (let load = 0; load < 3; load++) {
        const modules = (JSON.parse(workerCodeText(await workerCode(live as unknown as LiveApp))) as WorkerCodeJson).modules;
        expect(Object.values(modules)).toEqual([{ json: { a: [1, 2, 3] } }]);
      }
      expect(ends).toHaveBeenCalledTimes(1);
    } finally {
      ends.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks a large JSON module a slice at a time, the event loop turning between (review-167 F11)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-json-module-'));
    try {
      const file = join(dir, 'table.json');
      writeFileSync(file, `[${'[],'.repeat(2_800_000)}[]]`); // 8 MiB: a quarter of a second of the thread in one piece here
      const live = {
        app: { project: 'p', appId: 'a', buildId: 'b', env: {}, hostnames: [] },
        build: { buildId: 'b', digest: '', unpackedBytes: 0, modules: [{ name: 'table.json', type: 'json' as const, file }], assetConfig: {}, compatibilityDate: '2025-09-01', compatibilityFlags: [] },
      };
      // What another tenant's request needs: turns of the event loop while the check runs, none far from the last.
      let last = performance.now();
      let longestGap = 0;
      let checking = true;
      const turn = () => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
        if (checking) setImmediate(turn);
      };
      setImmediate(turn);
      const started = performance.now();
      await workerCode(live as unknown as LiveApp);
      checking = false;
      const took = performance.now() - started;
      longestGap = Math.max(longestGap, performance.now() - last); // up to the end: the check may have been the last piece
      // In one piece the longest gap is the whole check, most of the time taken; in slices a small part of it.
      expect(longestGap, `the longest gap between turns ${longestGap.toFixed(0)} ms of ${took.toFixed(0)} ms`).toBeLessThan(took / 5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hands on a JSON module whose value would not fit this process’s heap without building it (review-165 F2)', () => {
    // `[{},{},…]` of 25 MiB (the checks' bound for one JSON module) is some 8.7 million objects, about 520 MB of
    // heap as a value: parsed here, it ended cw-runtime (heap 512 MiB) on every replica that prepared the build.
    const dir = mkdtempSync(join(tmpdir(), 'cw-json-module-'));
    try {
      const file = join(dir, 'table.json');
      writeFileSync(file, `[${'{},'.repeat(8_700_000)}{}]`);
      const script = `
        const { workerCode, workerCodeText } = await import(${JSON.stringify(new URL('./worker-code.ts', import.meta.url).href)});
        const live = {
          app: { project: 'p', appId: 'a', buildId: 'b', env: {}, hostnames: [] },
          build: { buildId: 'b', digest: '', unpackedBytes: 0, modules: [{ name: 'table.json', type: 'json', file: ${JSON.stringify(file)} }], assetConfig: {}, compatibilityDate: '2025-09-01', compatibilityFlags: [] },
        };
        process.stdout.write(String(workerCodeText(await workerCode(live)).length));`;
      const run = spawnSync(process.execPath, ['--max-old-space-size=256', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).not.toContain('heap out of memory');
      expect(run.status, run.stderr).toBe(0);
      expect(Number(run.stdout)).toBeGreaterThan(26_000_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
