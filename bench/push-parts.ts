// Two parts of a push's build measured alone, on the same machine and in the same run as the pushes, so the
// breakdown can say how much of "Building → Succeeded" is the builder itself: the operator's local runner
// (operator/controllers/source-build/local-runner.ts, as the operator calls it: setpriv, prlimit, a fresh node
// running the builder script) building the same one-file worker from a source served by this process, from
// `run` to its `finished`; and `packOutput` of that run's output tar (what the operator does next, before
// storing the Build). A node that starts and exits at once (`node -e ''`) is timed as the floor of the first.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { DEFAULT_BUILD_LIMITS } from '../operator/controllers/source-build/build-runner.ts';
import { LocalBuildRunner } from '../operator/controllers/source-build/local-runner.ts';
import { packOutput } from '../operator/controllers/source-build/pack-output.ts';

export interface PartsFigures {
  /** LocalBuildRunner: `run` called to `finished`, per run. */
  readonly runnerMs: number[];
  /** packOutput of the run's output, per run. */
  readonly packMs: number[];
  /** `node -e ''`, start to exit, per run. */
  readonly nodeMs: number[];
}

export async function measureParts(stateDir: string, source: string, runs: number): Promise<PartsFigures> {
  const dir = mkdtempSync(join(stateDir, 'parts-'));
  writeFileSync(join(dir, 'worker.js'), source);
  const sourceTar = execFileSync('tar', ['-czf', '-', '-C', dir, 'worker.js']);
  let output = Buffer.alloc(0);
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.end(sourceTar);
      return;
    }
    void buffer(req).then((body) => {
      output = body;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const runner = new LocalBuildRunner({ workDir: join(dir, 'runner') });
  const figures: PartsFigures = { runnerMs: [], packMs: [], nodeMs: [] };
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const result = await new Promise((resolve) => {
        void runner.run(
          { id: `parts-${i}`, namespace: 'bench', build: `parts-${i}`, sourceUrl: `${base}/source`, outputUrl: `${base}/output`, outputDirectory: '.', environment: {}, limits: DEFAULT_BUILD_LIMITS },
          { log: () => {}, finished: resolve },
        );
      });
      figures.runnerMs.push(performance.now() - t0);
      if ((result as { outcome: string }).outcome !== 'succeeded') throw new Error(`the local runner alone: ${JSON.stringify(result)}`);
      const t1 = performance.now();
      await packOutput([output]);
      figures.packMs.push(performance.now() - t1);
      const t2 = performance.now();
      spawnSync(process.execPath, ['-e', '']);
      figures.nodeMs.push(performance.now() - t2);
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
