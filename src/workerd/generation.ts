import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join, relative } from 'node:path';
import type { PreparedBuild } from './build-store.ts';
import type { RuntimeLogger } from './log.ts';
import type { AppDeployment } from './ports.ts';
import { UpstreamPool } from './upstream.ts';
import { renderWorkerdConfig, serviceNames, type WorkerdDeployment } from './workerd-config.ts';
import { WorkerdProcess, WorkerdStartError } from './workerd-process.ts';

/** An app as one generation serves it: the deployment asked for and its unpacked build. */
export interface LiveApp {
  readonly app: AppDeployment;
  readonly build: PreparedBuild;
  /** Its requests report to the tail worker (someone follows its logs). */
  readonly tailed?: boolean;
}

/**
 * One workerd process serving a fixed set of apps, each on its own Unix socket in `dir`. A change of
 * code or environment means a new generation (workerd cannot reload); host names and limits are
 * routing only and change without one.
 */
export interface Generation {
  readonly id: number;
  readonly dir: string;
  readonly proc: WorkerdProcess;
  readonly pool: UpstreamPool;
  /** App key → socket path. */
  readonly sockets: ReadonlyMap<string, string>;
  readonly healthSocket: string;
  /** App key → what it serves; replaced (same workers) when only routing changed. */
  apps: ReadonlyMap<string, LiveApp>;
  readonly startedAt: number;
  retiring: boolean;
}

export interface GenerationContext {
  readonly binary: string;
  readonly startTimeoutMs: number;
  readonly log: RuntimeLogger;
  /** The log sink's Unix socket (`log-sink.ts`); absent for throwaway generations, whose apps serve no one. */
  readonly logSink?: string;
}

/** What must be equal for two generations to run the same workers: build and environment. */
export function workerFingerprint(live: LiveApp): string {
  const env = Object.entries(live.app.env).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([live.build.buildId, env]);
}

export function sameWorkers(a: ReadonlyMap<string, LiveApp>, b: ReadonlyMap<string, LiveApp>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, live] of a) {
    const other = b.get(key);
    if (!other || workerFingerprint(other) !== workerFingerprint(live) || !other.tailed !== !live.tailed) return false;
  }
  return true;
}

function toDeployment(live: LiveApp, socketPath: string, configDir: string): WorkerdDeployment {
  const { app, build } = live;
  return {
    project: app.project,
    appId: app.appId,
    buildId: build.buildId,
    socket: `unix:${socketPath}`,
    tailed: live.tailed === true,
    modules: build.modules.map((m) => ({ name: m.name, type: m.type, embedPath: relative(configDir, m.file) })),
    env: app.env,
    compatibilityDate: build.compatibilityDate,
    compatibilityFlags: build.compatibilityFlags,
    ...(build.assetsDir ? { assets: { directory: build.assetsDir, config: build.assetConfig } } : {}),
  };
}

/** Writes the config into a fresh `dir` and starts workerd on it; resolves once every socket listens. */
export async function startGeneration(ctx: GenerationContext, id: number, dir: string, apps: ReadonlyMap<string, LiveApp>): Promise<Generation> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const keys = [...apps.keys()].sort();
  const sockets = new Map(keys.map((key, i) => [key, join(dir, `${i}.sock`)]));
  const healthSocket = join(dir, 'health.sock');
  const config = renderWorkerdConfig({
    deployments: keys.map((key) => toDeployment(apps.get(key) as LiveApp, sockets.get(key) as string, dir)),
    healthSocket: `unix:${healthSocket}`,
    ...(ctx.logSink === undefined ? {} : { logSink: `unix:${ctx.logSink}` }),
  });
  const configPath = join(dir, 'config.capnp');
  await writeFile(configPath, config.text);
  try {
    const proc = await WorkerdProcess.start({
      binary: ctx.binary,
      configPath,
      experimental: config.experimental,
      sockets: config.sockets.keys(),
      startTimeoutMs: ctx.startTimeoutMs,
      log: ctx.log,
    });
    await writeFile(join(dir, 'pid'), String(proc.pid));
    return { id, dir, proc, pool: new UpstreamPool(), sockets, healthSocket, apps, startedAt: Date.now(), retiring: false };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Loads one app alone in a throwaway workerd: `undefined` when it loads, else workerd's explanation
 * (with the service name prefix removed, as it names our internals, not the user's code).
 *
 * workerd refusing the config is the build's fault. Anything else (workerd killed, not run, or not
 * listening in time) is the build's fault only if a workerd with no apps starts fine right after and the
 * app alone fails again with twice the time: a build that loops or exhausts memory while loading is
 * refused, but a machine too busy to start workerd at all, or for a while, says nothing about the build,
 * which must not be refused for it.
 *
 * @throws the start error when workerd cannot start even without the app
 */
export async function probe(ctx: GenerationContext, dir: string, live: LiveApp): Promise<string | undefined> {
  const alone = new Map([['probe', live]]);
  try {
    await startAndStop(ctx, dir, alone);
    return undefined;
  } catch (first) {
    if (!(first instanceof WorkerdStartError)) throw first;
    let err = first;
    if (!err.refusedConfig) {
      if (
        !(await startAndStop(ctx, `${dir}-empty`, new Map()).then(
          () => true,
          () => false,
        ))
      )
        throw err;
      try {
        await startAndStop({ ...ctx, startTimeoutMs: ctx.startTimeoutMs * 2 }, dir, alone);
        return undefined;
      } catch (again) {
        if (!(again instanceof WorkerdStartError)) throw again;
        err = again;
      }
    }
    const names = serviceNames({ ...live.app, buildId: live.build.buildId });
    const detail = err.output
      .split('\n')
      .map((line) => line.replace(`service ${names.worker}: `, '').replace(`service ${names.assets}: `, ''))
      .join('\n')
      .trim();
    return (detail || err.message).slice(0, 4096);
  }
}

/** Starts a throwaway generation of `apps` in `dir` and stops it again. @throws WorkerdStartError */
async function startAndStop(ctx: GenerationContext, dir: string, apps: Map<string, LiveApp>): Promise<void> {
  const gen = await startGeneration({ binary: ctx.binary, startTimeoutMs: ctx.startTimeoutMs, log: ctx.log }, 0, dir, apps);
  await gen.proc.stop(1000);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Kills workerd processes a previous run of the engine left behind (it crashed without stopping them):
 * each generation directory holds its workerd's pid, killed only if that process still runs our config.
 */
export async function killLeftovers(runDir: string): Promise<void> {
  const dirs = await readdir(runDir).catch(() => [] as string[]);
  for (const name of dirs) {
    const pid = Number(await readFile(join(runDir, name, 'pid'), 'utf8').catch(() => ''));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(join(runDir, name, 'config.capnp'))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Waits for the generation's requests to finish (at most `drainTimeoutMs`), then stops workerd and removes its directory. */
export async function retire(gen: Generation, drainTimeoutMs: number): Promise<void> {
  gen.retiring = true;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([gen.pool.idle(), new Promise((resolve) => (timer = setTimeout(resolve, drainTimeoutMs).unref()))]);
  clearTimeout(timer);
  await gen.proc.stop();
  gen.pool.destroy();
  await rm(gen.dir, { recursive: true, force: true });
}

/** `GET /` on the generation's health worker: true on `200` within `timeoutMs`. */
export function healthy(gen: Generation, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: gen.healthSocket, path: '/', headers: { host: 'health' }, timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(false));
    req.end();
  });
}
