// The baseline of bench/runtime.ts: one worker alone in a workerd listening on TCP, as clients reach the
// entry point, with the same config generator the runtime uses.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderWorkerdConfig, resolveWorkerdBinary } from '../src/workerd/index.ts';
import { silentRuntimeLogger } from '../src/workerd/log.ts';
import { WorkerdProcess } from '../src/workerd/workerd-process.ts';

export async function workerdOnTcp(dir: string, port: number, source: string, env: Record<string, string>): Promise<WorkerdProcess> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'worker.js'), source);
  const config = renderWorkerdConfig({
    deployments: [
      {
        project: 'bench',
        appId: 'direct',
        buildId: 'direct',
        socket: `127.0.0.1:${port}`,
        modules: [{ name: 'worker.js', type: 'esModule', embedPath: 'worker.js' }],
        env,
        compatibilityDate: '2025-09-01',
        compatibilityFlags: [],
      },
    ],
  });
  writeFileSync(join(dir, 'config.capnp'), config.text);
  return WorkerdProcess.start({
    binary: resolveWorkerdBinary(),
    configPath: join(dir, 'config.capnp'),
    experimental: config.experimental,
    sockets: config.sockets.keys(),
    startTimeoutMs: 10_000,
    log: silentRuntimeLogger,
  });
}
