// The baseline of bench/runtime.ts: one worker alone in a workerd listening on TCP, as clients reach the
// entry point.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { capnpString } from '../runtime-server/engine/capnp-text.ts';
import { resolveWorkerdBinary } from '../runtime-server/engine/index.ts';
import { silentRuntimeLogger } from '../src/runtime-contract/log.ts';
import { WorkerdProcess } from '../runtime-server/engine/workerd-process.ts';

export function workerdOnTcp(dir: string, port: number, source: string, env: Record<string, string>): Promise<WorkerdProcess> {
  return workerdAlone(dir, `127.0.0.1:${port}`, source, env);
}

/** The worker alone in a workerd listening on `address` (`host:port`, or `unix:<path>`). */
export async function workerdAlone(dir: string, address: string, source: string, env: Record<string, string>): Promise<WorkerdProcess> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'worker.js'), source);
  const bindings = Object.entries(env).map(([name, value]) => `(name = ${capnpString(name)}, text = ${capnpString(value)})`);
  const text = [
    'using Workerd = import "/workerd/workerd.capnp";',
    'const config :Workerd.Config = (',
    `  services = [(name = "direct", worker = (modules = [(name = "worker.js", esModule = embed "worker.js")], compatibilityDate = "2025-09-01", bindings = [${bindings.join(', ')}]))],`,
    `  sockets = [(name = "direct", address = ${capnpString(address)}, http = (), service = "direct")],`,
    ');',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.capnp'), text);
  return WorkerdProcess.start({
    binary: resolveWorkerdBinary(),
    configPath: join(dir, 'config.capnp'),
    experimental: false,
    sockets: ['direct'],
    startTimeoutMs: 10_000,
    log: silentRuntimeLogger,
  });
}
